#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# nvprofilectl's bash completion in a real bash: the script is sourced as bash-completion would,
# COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT are set as readline sets them for a line, and COMPREPLY
# is compared with what must be offered. nvprofilectl (from $NVPROFILECTL_BIN) answers through PATH,
# as for a user. Usage: test-completion-bash.sh COMPLETION_SCRIPT
set -u

script=$1
bin_dir=$(mktemp -d)
trap 'rm -rf "$bin_dir"' EXIT
ln -s "$NVPROFILECTL_BIN" "$bin_dir/nvprofilectl"
mkdir "$bin_dir/files"
touch "$bin_dir/files/a.ncu-rep" "$bin_dir/files/b.ncu-rep"
PATH=$bin_dir:$PATH
# shellcheck source=/dev/null
source "$script"

n=0
failed=0

# complete LINE: COMPREPLY for the cursor at the end of LINE, split at blanks and at "=" as bash does.
complete_line() {
    local line=$1
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMP_WORDS=()
    local rest=$line word
    # bash's own split: blanks separate, "=" is a word of its own (COMP_WORDBREAKS).
    while [[ -n $rest ]]; do
        rest=${rest#"${rest%%[![:space:]]*}"}
        [[ -z $rest ]] && break
        if [[ $rest == =* ]]; then
            COMP_WORDS+=("=")
            rest=${rest#=}
            continue
        fi
        word=${rest%%[[:space:]=]*}
        COMP_WORDS+=("$word")
        rest=${rest#"$word"}
    done
    if [[ $line == *[[:space:]] ]]; then
        COMP_WORDS+=("")
    fi
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _nvprofilectl nvprofilectl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]:-}"
}

# expect NAME LINE WORD...: COMPREPLY is exactly these words, in any order.
expect() {
    local name=$1 line=$2 got want
    shift 2
    complete_line "$line"
    got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    n=$((n + 1))
    if [[ $got == "$want" ]]; then
        echo "ok $n $name"
    else
        echo "not ok $n $name"
        echo "# line: \"$line\""
        echo "# want: $want"
        echo "# got:  $got"
        failed=1
    fi
}

expect "verbs" "nvprofilectl " status processes explain resolve rules profiles errors doctor check settings \
    monitor reload version fdinfo report top sections help
expect "a verb from its beginning" "nvprofilectl rep" report
expect "report's commands only" "nvprofilectl report " summary json raw details session rules diff
expect "a command from its beginning" "nvprofilectl report s" summary session
expect "options of every verb" "nvprofilectl status --" --help --version --json --no-legend --bus= --user
expect "options of a verb" "nvprofilectl top --" --help --version --json --no-legend --bus= --user \
    --interval= --once --sort= --group=
expect "options of a command" "nvprofilectl report details --print-" --print-units= --print-details= \
    --print-metric-instances= --print-summary=
expect "no option of another command" "nvprofilectl report summary --out"
expect "values after =" "nvprofilectl top --sort=" gpu memory pid command profile
expect "values after = from their beginning" "nvprofilectl --json=p" pretty
expect "values as the next word" "nvprofilectl top --sort p" pid profile
expect "files where a command takes a file" "nvprofilectl report summary $bin_dir/files/" \
    "$bin_dir/files/a.ncu-rep" "$bin_dir/files/b.ncu-rep"
expect "no file past the last argument" "nvprofilectl report summary x "
expect "files of an option" "nvprofilectl report raw x --output=$bin_dir/files/a" "$bin_dir/files/a.ncu-rep"
expect "help's verbs" "nvprofilectl help rep" report
expect "help's commands" "nvprofilectl help sections c" check
expect "edit commands" "nvprofilectl rules " add set remove move
expect "nothing after an unknown verb" "nvprofilectl frobnicate "

echo "1..$n"
exit $failed
