#!/bin/sh
# The plugin's hooks run `sh hooks/self-repair-hook.sh EVENT` (hooks/hooks.json, exec form): this
# launcher runs `self-repair hook EVENT` from PATH, else from where `uv tool`/`pipx`/`pip --user`
# (~/.local/bin) and `cargo install` (~/.cargo/bin) put it: a client started from an IDE or a
# desktop launcher often lacks those on PATH. With no binary at all it says once, at the start of
# the session, how to install it, and lets every other event pass quietly (exit 0, no output)
# instead of a hook error at every stop. Why a launcher: reference/design-notes.md, note 40.
# Found only in a fallback folder, the binary hears it (SELF_REPAIR_LAUNCHER_FALLBACK) and says at
# the session start that the agents, which call `self-repair` by name, will not find it.
event=$1
if command -v self-repair >/dev/null 2>&1; then
  exec self-repair hook "$event"
fi
for candidate in "$HOME/.local/bin/self-repair" "$HOME/.cargo/bin/self-repair"; do
  if [ -x "$candidate" ]; then
    SELF_REPAIR_LAUNCHER_FALLBACK=$candidate
    export SELF_REPAIR_LAUNCHER_FALLBACK
    exec "$candidate" hook "$event"
  fi
done

# No binary: read the hook input (the client writes it whatever the hook does).
input=$(cat)
[ "$event" = session-start ] || exit 0
case $input in
  # After a compaction the session already had the message at its start.
  *'"source":"compact"'* | *'"source": "compact"'*) exit 0 ;;
esac
printf '%s\n' '{"systemMessage":"self-repair: the plugin is installed but the self-repair program is not, so its hooks do nothing in this session (no self-repair on PATH, in ~/.local/bin or in ~/.cargo/bin). Install it from a clone of https://github.com/self-repair/self-repair with `cargo install --locked --path .` (Rust 1.89 or newer; it goes into ~/.cargo/bin), make sure that folder is on the PATH Claude Code starts with, then start a new session; `self-repair doctor` checks the setup. It is not on PyPI yet.","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"The self-repair plugin is installed but its program is not: its hooks do nothing and `self-repair` commands fail with command not found. If the user asks for self-repair, tell them to install it from a clone of https://github.com/self-repair/self-repair (`cargo install --locked --path .`, then ~/.cargo/bin on the PATH Claude Code starts with) and start a new session; do not try to run it."}}'
