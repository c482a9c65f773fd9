# lib's prompt segment for zsh: what waits on this device for the account in
# effect (an exported LIB_ACCOUNT, else the current one: what lib itself
# would act on from this shell), e.g. "alice ↑3 ≠1", then what waits in the
# other accounts, added up ("alice ↑3 ≠1 · ↑1"), nothing when nothing waits.
# An account shows as its alias (lib switch ACCOUNT --alias NAME), else its
# user name, with as much of the server as tells it from another account
# (alice@example.org, alice@:19501); a name is cut to 20 characters.
# Add to ~/.zshrc:
#
#     source /usr/local/share/lib/prompt/lib-prompt.zsh
#
# It adds a precmd hook and puts $LIB_PROMPT in PROMPT (set LIB_PROMPT_PS1=no
# to place "${LIB_PROMPT:+(${LIB_PROMPT//\%/%%}) }" yourself; the powerlevel10k segment
# does). The segment comes from lib's prompt file, read with shell built-ins:
# no process starts at a prompt. Only when the file is missing (a change was
# interrupted) does it run `lib status --prompt`, which writes it again.

# REPLY: the parameter NAME as lib would see it in this shell: only an
# exported one reaches lib.
__lib_prompt_env() {
  if [[ ${(tP)1} == *export* ]]; then REPLY=${(P)1}; else REPLY=; fi
}

__lib_prompt_update() {
  emulate -L zsh
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
  typeset -g LIB_PROMPT=
  if [[ -n $account ]]; then
    name=$account
    if [[ ! -d $data/accounts/$name ]]; then
      # A prefix, as `lib -A` takes it: it must name one account.
      local -a matches=("$data/accounts/$account"*(N/))
      (( ${#matches} == 1 )) && name=${matches[1]:t} || name=
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
    (*[Uu][Tt][Ff]-8* | *[Uu][Tt][Ff]8*) unicode=yes ;;
  esac
  if [[ -n $name && -f $file ]]; then
    # Nothing on stderr at a prompt, ever (an unreadable file shows nothing).
    local own_utf8 own_ascii
    { IFS= read -r utf8; IFS= read -r ascii; IFS= read -r own_utf8; IFS= read -r own_ascii; } 2>/dev/null < "$file"
    [[ $unicode == yes ]] && LIB_PROMPT=$utf8 || LIB_PROMPT=$ascii
    # What waits in the other accounts, added up from their own prompt
    # files (the counts of their ASCII lines), as `lib status --prompt`
    # composes it: "alice ↑2 · ↑1 ≠2"; "alice · ↑1" when nothing waits for this one.
    local dir word sep='|' rest=
    local -i i
    local -a words marks=('+' '=' 'x' '~')
    local -a sums=(0 0 0 0)
    [[ $unicode == yes ]] && { sep='·'; marks=('↑' '≠' '✗' '⊘'); }
    for dir in "$data"/accounts/*(N/); do
      [[ $dir == "$data/accounts/$name" ]] && continue
      if [[ ! -f $dir/prompt ]]; then
        # A missing file (an interrupted change) is never guessed at.
        if [[ -f $dir/store.sqlite ]]; then
          LIB_PROMPT=$(command lib status --prompt 2>/dev/null); sums=(0 0 0 0); break
        fi
        continue
      fi
      words=()
      { IFS= read -r utf8; IFS=' ' read -rA words; } 2>/dev/null < "$dir/prompt"
      for word in "${(@)words[2,-1]}"; do
        # Only a mark and up to 9 digits: nothing else reaches arithmetic.
        [[ $word =~ '^[+=x~][0-9]{1,9}$' ]] || continue
        case ${word[1]} in
          (+) i=1 ;; (=) i=2 ;; (x) i=3 ;; (*) i=4 ;;
        esac
        (( sums[i] += 10#${word[2,-1]} ))
      done
    done
    for i in 1 2 3 4; do
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
  # character (a control character, a bidi override) shows as "?". A "%"
  # stays, and is quoted where the value goes into PROMPT.
  if [[ $unicode == yes ]]; then
    LIB_PROMPT=${LIB_PROMPT//[^[:alnum:] @:.\{\}%_\\↑↓≠✗⊘·…+=~\[\]-]/?}
  else
    LIB_PROMPT=${LIB_PROMPT//[^a-zA-Z0-9 @:.\{\}%_\\|+=~\[\]-]/?}
  fi
}

autoload -Uz add-zsh-hook
add-zsh-hook precmd __lib_prompt_update
if [[ ${LIB_PROMPT_PS1:-yes} == yes && $PROMPT != *LIB_PROMPT* ]]; then
  setopt prompt_subst
  # prompt_subst expands ${...} before the % escapes: "%" is doubled so
  # that a segment's "%F{red}" is shown, never obeyed.
  PROMPT='${LIB_PROMPT:+(${LIB_PROMPT//\%/%%}) }'$PROMPT
fi
