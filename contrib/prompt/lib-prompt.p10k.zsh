# A powerlevel10k segment for lib: what waits on this device for the account
# in effect, e.g. "alice ↑3 ≠1", then the other accounts with writes waiting
# ("alice ↑3 ≠1 · bob ↑1"), hidden when nothing waits. In ~/.zshrc,
# after powerlevel10k:
#
#     source /usr/local/share/lib/prompt/lib-prompt.p10k.zsh
#
# and add `lib` to POWERLEVEL9K_LEFT_PROMPT_ELEMENTS (or the right ones).
# p10k calls prompt_lib inside the shell at each prompt; it reads lib's prompt
# file with zsh built-ins (lib-prompt.zsh), so no process starts, and it is
# safe for instant prompt.

LIB_PROMPT_PS1=no source "${${(%):-%x}:A:h}/lib-prompt.zsh"

prompt_lib() {
  __lib_prompt_update
  [[ -n $LIB_PROMPT ]] && p10k segment -f 208 -t "${LIB_PROMPT//\%/%%}"
}

instant_prompt_lib() { prompt_lib }
