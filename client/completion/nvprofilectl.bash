# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for nvprofilectl. The candidates come from nvprofilectl itself
# ("nvprofilectl __complete -- WORDS..."), written from the same tables as its parser and help, so
# this script knows no verb or option of its own.

_nvprofilectl() {
    local line=${COMP_LINE:0:COMP_POINT} word=${COMP_WORDS[COMP_CWORD]} typed prefix candidate
    local -a words candidates
    COMPREPLY=()

    # Words as nvprofilectl sees them: bash splits "--json=pr" at "=" (COMP_WORDBREAKS), nvprofilectl
    # does not.
    read -r -a words <<< "$line"
    [[ -z $line || $line == *[[:space:]] ]] && words+=("")
    typed=${words[${#words[@]}-1]}
    [[ $word == "=" ]] && word=""
    # What bash replaces is word; nvprofilectl's candidates start with all of typed.
    prefix=${typed%"$word"}

    mapfile -t candidates < <("${words[0]}" __complete -- "${words[@]:1}" 2>/dev/null)
    case ${candidates[0]-} in
        @files)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$word")
            return 0 ;;
        @directories)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$word")
            return 0 ;;
    esac
    for candidate in "${candidates[@]}"; do
        COMPREPLY+=("${candidate#"$prefix"}")
    done
    # "--output=" waits for its value.
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}

complete -F _nvprofilectl nvprofilectl
