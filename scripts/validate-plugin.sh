#!/usr/bin/env bash
# Validate the Claude Code plugin bundle of this repository with the real Claude Code CLI.
#
# Usage: scripts/validate-plugin.sh [REPO_DIR]
#   REPO_DIR  the marketplace root to check (default: this repository); the plugin is its
#             `plugin/` folder, the one the marketplace lists.
#
# 1. Installs the pinned CLI with scripts/install-tools.sh unless CLAUDE_BIN is already set.
# 2. Runs `claude plugin validate --strict` on the plugin manifest (plugin/.claude-plugin/plugin.json)
#    and on the marketplace (the repo root, whose marketplace.json lists `./plugin` as the plugin),
#    offline, with a throw-away CLAUDE_CONFIG_DIR. Any error or warning fails.
# 3. Checks the bundle: the ten agents exist, each agents/*.md has `name` equal to its file
#    stem and a `description`; every template only uses the placeholders `self-repair show`
#    supplies for it.
#
# Prints `plugin validate: N passed, M failed` and exits 0 only when everything passed.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "${1:-$script_dir/..}" && pwd)"
plugin="$repo/plugin"

readonly AGENTS=(triage-investigator rule-surveyor triage-aggregator rule-reviewer fix-planner
  plan-synthesizer plan-reviewer plan-reviser task-writer fixer)
readonly COMMON_VARS="run item kind schema submit show format"
declare -A TEMPLATE_VARS=(
  [triage-generic.md]="route count rules findings claim confidence"
  [triage-dead-code.md]="route count rules findings claim confidence"
  [triage-security.md]="route count rules findings scope claim confidence"
  [rule-survey.md]="rule count sample_count files fix rules findings"
  [aggregate.md]="count slice"
  [merge-labels.md]="count labels"
  [rule-review.md]="count verdicts"
  [plan.md]="group findings planner planners peers emphasis"
  [synthesize.md]="group findings plans"
  [review.md]="angle angle_guide group findings plan"
  [revise.md]="group findings plan points approach"
  [write-task.md]="group findings plan reviews"
  [fix-feedback.md]="attempt max_attempts command exit output changes approach"
  [fix-fixer.md]="attempt max_attempts command exit output changes approach history"
)

problems=0
problem() {
  echo "validate-plugin: FAIL: $*" >&2
  problems=$((problems + 1))
}

if [[ -z "${CLAUDE_BIN:-}" || ! -x "${CLAUDE_BIN:-}" ]]; then
  env_lines="$("$script_dir/install-tools.sh" --print-env)" || {
    echo "validate-plugin: ERROR: scripts/install-tools.sh failed; see its message above" >&2
    exit 1
  }
  eval "$env_lines"
fi
command -v node >/dev/null 2>&1 || {
  echo "validate-plugin: ERROR: node not found on PATH (needed to read the validator's JSON)" >&2
  exit 1
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Runs the validator on $2 (label $1); on failure prints its human-readable report. With $3 =
# "contents", also checks what it says the target provides (agents, skill, hooks): the plugin
# does; the marketplace lists it by its folder and provides nothing of its own.
passed=0
failed=0
validate() {
  local label="$1" target="$2" contents="${3:-}" json rc=0
  json="$(cd "$work" && CLAUDE_CONFIG_DIR="$work/config" DISABLE_AUTOUPDATER=1 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    "$CLAUDE_BIN" plugin validate --strict --json "$target" </dev/null 2>"$work/stderr")" || rc=$?
  local verdict
  # shellcheck disable=SC2016 # the ${...} below are JavaScript template literals
  verdict="$(printf '%s' "$json" | EXPECT_AGENTS="${AGENTS[*]}" EXPECT_CONTENTS="$contents" node -e '
    let text = "";
    process.stdin.on("data", (c) => (text += c));
    process.stdin.on("end", () => {
      const out = [];
      let d;
      try { d = JSON.parse(text); } catch (e) { console.log("output is not JSON: " + e.message); return; }
      if (d.success !== true) out.push("success is " + d.success);
      for (const part of [d.manifest, ...(d.contents || [])]) {
        if (!part) continue;
        for (const kind of ["errors", "warnings"])
          for (const p of part[kind] || []) out.push(`${kind.slice(0, -1)} ${part.file || ""} ${p.path}: ${p.message}`);
      }
      if (process.env.EXPECT_CONTENTS !== "contents") { console.log(out.join("\n")); return; }
      const p = d.provides || {};
      const want = process.env.EXPECT_AGENTS.split(" ").map((a) => "self-repair:" + a).sort();
      const got = [...(p.agents || [])].sort();
      if (JSON.stringify(want) !== JSON.stringify(got)) out.push("agents provided: " + got.join(", ") + "; expected: " + want.join(", "));
      if (JSON.stringify(p.skills || []) !== JSON.stringify(["self-repair:self-repair"])) out.push("skills provided: " + (p.skills || []).join(", ") + "; expected: self-repair:self-repair");
      const events = (p.hooks || []).map((h) => h.event).sort().join(",");
      if (events !== "PostToolUse,PreToolUse,SessionStart,Stop,StopFailure") out.push("hook events provided: " + events + "; expected PostToolUse,PreToolUse,SessionStart,Stop,StopFailure");
      console.log(out.join("\n"));
    });')" || verdict="could not read the validator output"
  if [[ $rc -eq 0 && -z "$verdict" ]]; then
    passed=$((passed + 1))
    return 0
  fi
  failed=$((failed + 1))
  problem "$label ($target): claude plugin validate --strict exited $rc"
  [[ -n "$verdict" ]] && printf '%s\n' "$verdict" | sed 's/^/  /' >&2
  sed 's/^/  stderr: /' "$work/stderr" >&2
  (cd "$work" && CLAUDE_CONFIG_DIR="$work/config" DISABLE_AUTOUPDATER=1 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    "$CLAUDE_BIN" plugin validate --strict "$target" </dev/null 2>&1 | sed 's/^/  | /' >&2) || true
}

validate "plugin" "$plugin" contents
validate "marketplace" "$repo"

# Frontmatter value of key $2 in file $1 (first `---` block only; surrounding quotes dropped).
front() {
  awk -v key="$2" '
    NR == 1 && $0 != "---" { exit }
    NR > 1 && $0 == "---" { exit }
    NR > 1 && index($0, key ":") == 1 {
      v = substr($0, length(key) + 2); sub(/^[ \t]+/, "", v); sub(/[ \t]+$/, "", v)
      if (v ~ /^".*"$/ || v ~ /^\047.*\047$/) v = substr(v, 2, length(v) - 2)
      print v; exit
    }' "$1"
}

for agent in "${AGENTS[@]}"; do
  [[ -f "$plugin/agents/$agent.md" ]] || problem "agents/$agent.md is missing"
done
shopt -s nullglob
for file in "$plugin"/agents/*.md; do
  stem="$(basename "$file" .md)"
  name="$(front "$file" name)"
  [[ "$name" == "$stem" ]] || problem "agents/$stem.md: frontmatter name is '${name}', expected '$stem'"
  [[ -n "$(front "$file" description)" ]] || problem "agents/$stem.md: no description in the frontmatter"
  [[ -n "$(front "$file" model)" ]] || problem "agents/$stem.md: no model in the frontmatter"
done

templates="$plugin/skill/self-repair/templates"
for tpl in "${!TEMPLATE_VARS[@]}"; do
  [[ -f "$templates/$tpl" ]] || problem "skill/self-repair/templates/$tpl is missing"
done
for file in "$templates"/*.md; do
  tpl="$(basename "$file")"
  if [[ -z "${TEMPLATE_VARS[$tpl]+set}" ]]; then
    problem "skill/self-repair/templates/$tpl: no item kind renders this template"
    continue
  fi
  allowed=" $COMMON_VARS ${TEMPLATE_VARS[$tpl]} "
  while IFS= read -r var; do
    [[ "$allowed" == *" $var "* ]] ||
      problem "skill/self-repair/templates/$tpl: unknown placeholder {{$var}} (allowed:$allowed)"
  done < <(grep -o '{{[^}]*}}' "$file" | sed 's/^{{ *//; s/ *}}$//' | sort -u)
  for var in ${TEMPLATE_VARS[$tpl]}; do
    grep -q "{{$var}}" "$file" || problem "skill/self-repair/templates/$tpl: never uses {{$var}}"
  done
done

# The plugin folder is what the client copies into its cache: only what it loads.
for entry in "$plugin"/* "$plugin"/.[!.]*; do
  case "$(basename "$entry")" in
  .claude-plugin | agents | hooks | skill) ;;
  *) problem "plugin/$(basename "$entry"): not something the client loads; keep the plugin folder to its manifest, agents, hooks and skill" ;;
  esac
done
bytes=$(du -sb "$plugin" | cut -f1)
((bytes < 2000000)) || problem "plugin/ is $bytes bytes: the client copies all of it into every install"

echo "plugin validate: $passed passed, $failed failed"
if [[ $problems -gt 0 ]]; then
  echo "validate-plugin: $problems problem(s); see above" >&2
  exit 1
fi
