# lib's prompt segment for bash: what waits on this device for the account in
# effect (an exported LIB_ACCOUNT, else the current one: what lib itself
# would act on from this shell), e.g. "alice ↑3 ≠1", then the other accounts
# with writes waiting ("alice ↑3 ≠1 · bob ↑1"), nothing when
# nothing waits. Add to ~/.bashrc:
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
    { IFS= read -r utf8; IFS= read -r ascii; } 2>/dev/null < "$file"
    [[ $unicode == yes ]] && LIB_PROMPT=$utf8 || LIB_PROMPT=$ascii
    # The other accounts with writes waiting, from their own prompt files,
    # as `lib status --prompt` composes them: "alice ↑2 · bob ↑1", at most
    # two, then "· N more"; "· bob ↑1" when nothing waits for this one.
    local dir other sep='|' shown=0 more=0 rest=
    [[ $unicode == yes ]] && sep='·'
    for dir in "$data"/accounts/*/; do
      [[ ${dir%/} == "$data/accounts/$name" ]] && continue
      if [[ ! -f ${dir}prompt ]]; then
        # A missing file (an interrupted change) is never guessed at.
        [[ -f ${dir}store.sqlite ]] && { LIB_PROMPT=$(command lib status --prompt 2>/dev/null); rest=; shown=-1; break; }
        continue
      fi
      utf8= ascii=
      { IFS= read -r utf8; IFS= read -r ascii; } 2>/dev/null < "${dir}prompt"
      [[ $unicode == yes ]] && other=$utf8 || other=$ascii
      [[ -n $other ]] || continue
      if (( shown < 2 )); then rest+=" $sep $other"; (( shown++ )); else (( more++ )); fi
    done
    (( more > 0 )) && rest+=" $sep $more more"
    if [[ -n $rest ]]; then
      [[ -n $LIB_PROMPT ]] && LIB_PROMPT+=$rest || LIB_PROMPT=${rest# }
    fi
  else
    LIB_PROMPT=$(command lib status --prompt 2>/dev/null)
  fi
  # Only what a segment is made of reaches the terminal: any other
  # character (a control character, a bidi override) shows as "?".
  if [[ $unicode == yes ]]; then
    LIB_PROMPT=${LIB_PROMPT//[^[:alnum:] @:.\{\}%_\\↑≠✗⊘·+=~\[\]-]/?}
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
