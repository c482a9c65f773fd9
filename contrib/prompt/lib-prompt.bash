# lib's prompt segment for bash: what waits on this device for the account in
# effect (an exported LIB_ACCOUNT, else the current one: what lib itself
# would act on from this shell), e.g. "alice ↑3 ↓2 ≠1" (3 writes to push, 2
# books changed on the server since the last pull, 1 conflict), then what
# waits in the other accounts, added up ("alice ↑3 ≠1 · ↑1"), nothing when
# nothing waits. With rules (`lib rule`), lib itself picks the account.
# An account shows as its alias (lib switch ACCOUNT --alias NAME), else its
# user name, with as much of the server as tells it from another account
# (alice@example.org, alice@:19501); a name is cut to 20 characters.
# Add to ~/.bashrc:
#
#     . /usr/local/share/lib/prompt/lib-prompt.bash
#
# It hooks PROMPT_COMMAND and puts $LIB_PROMPT in PS1 (set LIB_PROMPT_PS1=no
# to place "${LIB_PROMPT:+($LIB_PROMPT) }" yourself). The segment comes from
# lib's prompt file, read with shell built-ins: no process starts at a prompt.
# Only when the file is missing (a change was interrupted) does it run
# `lib status --prompt`, which also writes the file again.

# REPLY: the variable NAME as lib would see it in this shell: only an
# exported variable reaches lib.
__lib_prompt_env() {
  if [[ ${!1@a} == *x* ]]; then REPLY=${!1}; else REPLY=; fi
}

__lib_prompt_update() {
  local config data name file utf8 ascii home xdg_config xdg_data account REPLY
  __lib_prompt_env LIB_HOME; home=$REPLY
  __lib_prompt_env XDG_CONFIG_HOME; xdg_config=$REPLY
  __lib_prompt_env XDG_DATA_HOME; xdg_data=$REPLY
  __lib_prompt_env LIB_ACCOUNT; account=$REPLY
  if [[ -n $home ]]; then
    config=$home/config data=$home/data
  else
    [[ $xdg_config == /* ]] && config=$xdg_config/lib || config=$HOME/.config/lib
    [[ $xdg_data == /* ]] && data=$xdg_data/lib || data=$HOME/.local/share/lib
  fi
  LIB_PROMPT=
  if [[ -n $account ]]; then
    name=$account
    if [[ ! -d $data/accounts/$name ]]; then
      # A prefix, as `lib -A` takes it: it must name one account.
      local matches=("$data/accounts/$account"*)
      if (( ${#matches[@]} == 1 )) && [[ -d ${matches[0]} ]]; then name=${matches[0]##*/}; else name=; fi
    fi
  elif [[ -s $config/rules ]]; then
    # A rule may choose the account by directory: lib decides.
    name=
  elif [[ -f $config/current ]]; then
    { IFS= read -r name; } 2>/dev/null < "$config/current"
  else
    return 0
  fi
  file=$data/accounts/$name/prompt
  local unicode=no
  case ${LC_ALL:-${LC_CTYPE:-$LANG}} in
    *[Uu][Tt][Ff]-8* | *[Uu][Tt][Ff]8*) unicode=yes ;;
  esac
  if [[ -n $name && -f $file ]]; then
    # Nothing on stderr at a prompt, ever (an unreadable file shows nothing).
    local own_utf8 own_ascii
    { IFS= read -r utf8; IFS= read -r ascii; IFS= read -r own_utf8; IFS= read -r own_ascii; } 2>/dev/null < "$file"
    [[ $unicode == yes ]] && LIB_PROMPT=$utf8 || LIB_PROMPT=$ascii
    # What waits in the other accounts, added up from their own prompt
    # files (the counts of their ASCII lines), as `lib status --prompt`
    # composes it: "alice ↑2 · ↑1 ≠2"; "alice · ↑1" when nothing waits for this one.
    local dir word sep='|' rest= i
    local -a words sums=(0 0 0 0) marks=('+' '=' 'x' '~')
    [[ $unicode == yes ]] && sep='·' marks=('↑' '≠' '✗' '⊘')
    for dir in "$data"/accounts/*/; do
      [[ ${dir%/} == "$data/accounts/$name" ]] && continue
      if [[ ! -f ${dir}prompt ]]; then
        # A missing file (an interrupted change) is never guessed at.
        [[ -f ${dir}store.sqlite ]] && { LIB_PROMPT=$(command lib status --prompt 2>/dev/null); sums=(0 0 0 0); break; }
        continue
      fi
      words=()
      { IFS= read -r utf8; IFS=' ' read -ra words; } 2>/dev/null < "${dir}prompt"
      for word in "${words[@]:1}"; do
        # Only a mark and up to 9 digits: nothing else reaches arithmetic.
        [[ ${word:1} =~ ^[0-9]{1,9}$ ]] || continue
        case ${word:0:1} in
          +) i=0 ;; =) i=1 ;; x) i=2 ;; '~') i=3 ;; *) continue ;;
        esac
        (( sums[i] += 10#${word:1} ))
      done
    done
    for i in 0 1 2 3; do
      (( sums[i] > 0 )) && rest+=" ${marks[i]}${sums[i]}"
    done
    if [[ -n $rest ]]; then
      if [[ -z $LIB_PROMPT ]]; then
        [[ $unicode == yes ]] && LIB_PROMPT=$own_utf8 || LIB_PROMPT=$own_ascii
      fi
      LIB_PROMPT+=" $sep$rest"
    fi
  else
    LIB_PROMPT=$(command lib status --prompt 2>/dev/null)
  fi
  # Only what a segment is made of reaches the terminal: any other
  # character (a control character, a bidi override) shows as "?".
  if [[ $unicode == yes ]]; then
    LIB_PROMPT=${LIB_PROMPT//[^[:alnum:] @:.\{\}%_\\↑↓≠✗⊘·…+=~\[\]-]/?}
  else
    LIB_PROMPT=${LIB_PROMPT//[^a-zA-Z0-9 @:.\{\}%_\\|+=~\[\]-]/?}
  fi
}

if [[ ";${PROMPT_COMMAND[*]};" != *";__lib_prompt_update;"* ]]; then
  PROMPT_COMMAND="__lib_prompt_update${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
fi
if [[ ${LIB_PROMPT_PS1:-yes} == yes && $PS1 != *LIB_PROMPT* ]]; then
  PS1='${LIB_PROMPT:+($LIB_PROMPT) }'$PS1
fi
