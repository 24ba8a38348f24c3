# SPDX-License-Identifier: LGPL-2.1-or-later
# fish completion for nvprofilectl. The candidates come from nvprofilectl itself
# ("nvprofilectl __complete -- WORDS..."), written from the same tables as its parser and help.

function __nvprofilectl_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l candidates (command $tokens[1] __complete -- $tokens[2..-1] $current 2>/dev/null)
    # "--output=FI": paths after the "=" (an empty list would empty "$prefix$path", hence '').
    set -l prefix ''
    if string match -rq -- '^--[^=]*=' $current
        set prefix (string match -r -- '^--[^=]*=' $current)
    end
    set -l value (string replace -r -- '^--[^=]*=' '' $current)
    switch "$candidates[1]"
        case @files
            for path in (__fish_complete_path $value)
                echo $prefix$path
            end
        case @directories
            for path in (__fish_complete_directories $value)
                echo $prefix$path
            end
        case '*'
            printf '%s\n' $candidates
    end
end

complete -c nvprofilectl -f -a '(__nvprofilectl_complete)'
