# lib's prompt segment for fish: what waits on this device for the account in
# effect (an exported LIB_ACCOUNT, else the current one: what lib itself
# would act on from this shell), e.g. "alice ↑3 ≠1", then what waits in the
# other accounts, added up ("alice ↑3 ≠1 · ↑1"), nothing when nothing waits.
# An account shows as its alias (lib switch ACCOUNT --alias NAME), else its
# user name, with as much of the server as tells it from another account
# (alice@example.org, alice@:19501); a name is cut to 20 characters.
# Add to ~/.config/fish/config.fish:
#
#     source /usr/local/share/lib/prompt/lib-prompt.fish
#
# It puts the segment before your fish_prompt (set LIB_PROMPT_PS1 to no and
# call lib_prompt in your own prompt instead). The segment comes from lib's
# prompt file, read with fish built-ins: no process starts at a prompt. Only
# when the file is missing (a change was interrupted) does it run
# `lib status --prompt`, which writes it again.

function lib_prompt --description "lib's prompt segment: writes waiting on this device"
    # Only exported variables reach lib: read what lib would see.
    set -l home; set -qx LIB_HOME; and set home $LIB_HOME
    set -l xdg_config; set -qx XDG_CONFIG_HOME; and set xdg_config $XDG_CONFIG_HOME
    set -l xdg_data; set -qx XDG_DATA_HOME; and set xdg_data $XDG_DATA_HOME
    set -l account; set -qx LIB_ACCOUNT; and set account $LIB_ACCOUNT
    set -l config $HOME/.config/lib
    set -l data $HOME/.local/share/lib
    if test -n "$home"
        set config $home/config
        set data $home/data
    else
        string match -q '/*' -- "$xdg_config"; and set config $xdg_config/lib
        string match -q '/*' -- "$xdg_data"; and set data $xdg_data/lib
    end
    set -l name
    if test -n "$account"
        set name $account
        if not test -d $data/accounts/$name
            # A prefix, as `lib -A` takes it: it must name one account.
            set -l matches $data/accounts/$account*/
            set name
            test (count $matches) -eq 1; and set name (string replace -r '.*/([^/]+)/$' '$1' -- $matches[1])
        end
    else if test -s $config/rules
        # A rule may choose the account by directory: lib decides.
        set name
    else if test -f $config/current
        read -l current < $config/current 2>/dev/null; and set name $current
    else
        return 0
    end
    set -l file $data/accounts/$name/prompt
    if test -n "$name" -a -f $file
        set -l locale $LC_ALL
        test -n "$locale"; or set locale $LC_CTYPE
        test -n "$locale"; or set locale $LANG
        set -l line 2
        set -l sep '|'
        if string match -qir 'utf-?8' -- "$locale"
            set line 1
            set sep '·'
        end
        set -l segment (__lib_prompt_line $file $line)
        # What waits in the other accounts, added up from their own prompt
        # files (the counts of their ASCII lines), as `lib status --prompt`
        # composes it: "alice ↑2 · ↑1 ≠2"; "alice · ↑1" when nothing waits here.
        set -l sums 0 0 0 0
        set -l marks + = x '~'
        test $line = 1; and set marks ↑ ≠ ✗ ⊘
        for dir in $data/accounts/*/
            test (string trim -r -c / -- $dir) = $data/accounts/$name; and continue
            if not test -f $dir/prompt
                # A missing file (an interrupted change) is never guessed at.
                if test -f $dir/store.sqlite
                    command lib status --prompt 2>/dev/null | read -l all; and __lib_prompt_shown $all
                    return 0
                end
                continue
            end
            set -l words (string split ' ' -- (__lib_prompt_line $dir/prompt 2))
            test (count $words) -gt 1; or continue
            set -e words[1]
            for word in $words
                # Only a mark and up to 9 digits: nothing else reaches math.
                string match -qr '^[+=x~][0-9]{1,9}$' -- $word; or continue
                set -l i (contains -i -- (string sub -l 1 -- $word) + = x '~')
                set sums[$i] (math $sums[$i] + (string sub -s 2 -- $word))
            end
        end
        set -l rest
        for i in 1 2 3 4
            test $sums[$i] -gt 0; and set -a rest $marks[$i]$sums[$i]
        end
        set -l shown $segment
        if test (count $rest) -gt 0
            if test -n "$segment"
                set shown "$segment $sep "(string join ' ' -- $rest)
            else
                set shown (__lib_prompt_line $file (math $line + 2))" $sep "(string join ' ' -- $rest)
            end
        end
        __lib_prompt_shown $shown
    else
        command lib status --prompt 2>/dev/null | read -l segment; and __lib_prompt_shown $segment
    end
end

# Line N of a prompt file (empty when the file has fewer lines, or cannot
# be read: nothing on stderr at a prompt, ever).
function __lib_prompt_line
    test -r $argv[1]; or return 0
    set -l lines
    while read -l line
        set -a lines $line
    end < $argv[1]
    test (count $lines) -ge $argv[2]; and echo $lines[$argv[2]]
end

# Only what a segment is made of reaches the terminal: any other character
# (a control character, a bidi override) shows as "?".
function __lib_prompt_shown
    echo -n (string replace -ra '[^\p{L}\p{N} @:.\[\]{}%_\\\\↑↓≠✗⊘·…|+=~-]' '?' -- $argv[1])
end

if test "$LIB_PROMPT_PS1" != no; and not functions -q __lib_original_fish_prompt
    functions -c fish_prompt __lib_original_fish_prompt
    function fish_prompt
        set -l segment (lib_prompt)
        test -n "$segment"; and echo -n "($segment) "
        __lib_original_fish_prompt
    end
end
