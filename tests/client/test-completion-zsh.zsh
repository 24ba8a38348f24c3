# SPDX-License-Identifier: LGPL-2.1-or-later
# nvprofilectl's zsh completion in a real zsh, with compadd, compset and _files standing in for those
# of a completion widget (they record what the script offers): words, CURRENT and PREFIX are set as zsh
# sets them for a line. nvprofilectl ($NVPROFILECTL_BIN) answers through PATH, as for a user.
# Usage: zsh test-completion-zsh.zsh COMPLETION_SCRIPT
emulate -L zsh
script=$1
bin_dir=$(mktemp -d)
ln -s $NVPROFILECTL_BIN $bin_dir/nvprofilectl
path=($bin_dir $path)

typeset -ga offered
# compadd [-S SUFFIX] -- WORDS: each word with its suffix ("--output=" waits for its value).
compadd() {
    local suffix=' '
    while [[ $1 != -- ]]; do
        [[ $1 == -S ]] && { suffix=$2; shift }
        shift
    done
    shift
    local w
    for w in "$@"; do offered+=("$w${suffix/ /}"); done
}
compset() { [[ $PREFIX == *=* ]] && PREFIX=${PREFIX#*=} }
_files() { offered+=("@files${1:+ $1}:$PREFIX") }

n=0
failed=0
# expect NAME WORD... -- OFFERED...: the line's words (the last the one completed) and what must be
# offered, in any order.
expect() {
    local name=$1; shift
    local -a line want
    while [[ $1 != -- ]]; do line+=("$1"); shift; done
    shift
    want=("$@")
    offered=()
    words=("${line[@]}")
    CURRENT=${#line}
    PREFIX=${line[-1]}
    source $script
    n=$((n + 1))
    if [[ ${(j: :)${(o)offered}} == ${(j: :)${(o)want}} ]]; then
        print "ok $n $name"
    else
        print "not ok $n $name"
        print "# want: ${(o)want}"
        print "# got:  ${(o)offered}"
        failed=1
    fi
}

expect "a verb from its beginning" nvprofilectl rep -- report
expect "report's commands only" nvprofilectl report '' -- summary json raw details session rules diff
expect "options of a command" nvprofilectl report details --print- -- --print-units= --print-details= \
    --print-metric-instances= --print-summary=
expect "flags and options waiting for a value" nvprofilectl top --o -- --once
expect "values after =" nvprofilectl top --sort=p -- --sort=pid --sort=profile
expect "files where a command takes a file" nvprofilectl report summary x -- "@files:x"
expect "files of an option, after its =" nvprofilectl report raw x --output=o -- "@files:o"
expect "directories" nvprofilectl rules --home= -- "@files -/:"
expect "nothing after an unknown verb" nvprofilectl frobnicate '' --

rm -rf $bin_dir
print "1..$n"
exit $failed
