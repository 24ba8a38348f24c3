# SPDX-License-Identifier: LGPL-2.1-or-later
# nvprofilectl's fish completion in a real fish: the script is sourced, "complete -C LINE" lists what
# fish offers for LINE, compared with what must be offered. nvprofilectl ($NVPROFILECTL_BIN) answers
# through PATH, as for a user. Usage: fish test-completion-fish.fish COMPLETION_SCRIPT
set -l bin_dir (mktemp -d)
ln -s $NVPROFILECTL_BIN $bin_dir/nvprofilectl
mkdir $bin_dir/files
touch $bin_dir/files/a.ncu-rep $bin_dir/files/b.ncu-rep
set -gx PATH $bin_dir $PATH
source $argv[1]

set -g n 0
set -g failed 0

# expect NAME LINE WORD...: fish offers exactly these words (descriptions cut off), in any order.
function expect
    set -l name $argv[1]
    set -l got (complete -C $argv[2] | string replace -r '\t.*' '' | sort)
    set -l want (printf '%s\n' $argv[3..-1] | sort)
    set n (math $n + 1)
    if test "$got" = "$want"
        echo "ok $n $name"
    else
        echo "not ok $n $name"
        echo "# line: \"$argv[2]\""
        echo "# want: $want"
        echo "# got:  $got"
        set failed 1
    end
end

expect "a verb from its beginning" "nvprofilectl rep" report
expect "report's commands only" "nvprofilectl report " summary json raw details session rules diff
expect "options of a command" "nvprofilectl report details --print-" --print-units= --print-details= \
    --print-metric-instances= --print-summary=
expect "values after =" "nvprofilectl top --sort=p" --sort=pid --sort=profile
expect "files where a command takes a file" "nvprofilectl report summary $bin_dir/files/" \
    $bin_dir/files/a.ncu-rep $bin_dir/files/b.ncu-rep
expect "files of an option" "nvprofilectl report raw x --output=$bin_dir/files/a" \
    --output=$bin_dir/files/a.ncu-rep
expect "nothing after an unknown verb" "nvprofilectl frobnicate "

rm -rf $bin_dir
echo "1..$n"
exit $failed
