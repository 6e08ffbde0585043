#!/usr/bin/env bash
# The scan step of the GitHub Action (action.yml), kept here so a test can run it with a fake GitHub environment.
#
# Reads INPUT_PATHS, INPUT_FAIL_ON, INPUT_CONFIG, INPUT_BASELINE, INPUT_SARIF, INPUT_ARGS, INPUT_AGAINST and INPUT_BASE; writes the
# SARIF file, the Markdown report to $GITHUB_STEP_SUMMARY, and `errors`, `warnings`, `infos`, `findings`, `sarif` and
# `exit-code` to $GITHUB_OUTPUT. With INPUT_AGAINST (cluster state: a dump, an archive, or `live`) the paths are applied
# over that state (`scan PATHS --against STATE`): the counts and the gate are of the findings the change introduces,
# `introduced`, `resolved` and `unchanged` are written too, and the job summary is the split. A failed gate (exit 1) exits 0 here so the SARIF upload still runs; the action's last step fails the
# job with `exit-code`. An unusable run (exit 2: a bad path, config or baseline) exits 2 at once.
#
# KARPDOCTOR_COMMAND is how karpdoctor is run: the action passes `npx --yes karpdoctor@VERSION`, the test the local build.
# No `set -u`: macOS runners' bash 3.2 calls an empty array unbound.
set -o pipefail

: "${KARPDOCTOR_COMMAND:?set by action.yml, e.g. npx --yes karpdoctor@0.1.0}"
: "${GITHUB_OUTPUT:?not running under GitHub Actions: GITHUB_OUTPUT is not set}"
: "${GITHUB_STEP_SUMMARY:?not running under GitHub Actions: GITHUB_STEP_SUMMARY is not set}"

# Paths and extra arguments are split on whitespace (one or several per line), as a workflow writes them.
read -r -d '' -a karpdoctor <<<"$KARPDOCTOR_COMMAND"
read -r -d '' -a paths <<<"${INPUT_PATHS:-.}"
read -r -d '' -a extra <<<"${INPUT_ARGS:-}"
# By default outside the workspace: a report written into the scanned tree would be read by the next scan.
sarif="${INPUT_SARIF:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/karpdoctor.sarif}"
mkdir -p "$(dirname "$sarif")"

options=()
[ -n "${INPUT_CONFIG:-}" ] && options+=(--config "$INPUT_CONFIG")
[ -n "${INPUT_BASELINE:-}" ] && options+=(--baseline "$INPUT_BASELINE")
[ -n "${INPUT_AGAINST:-}" ] && options+=(--against "$INPUT_AGAINST")
[ -n "${INPUT_BASE:-}" ] && options+=(--base "$INPUT_BASE")
options+=("${extra[@]}")

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The gate: SARIF for code scanning, exit code at --fail-on (or failOn of the config when the input is empty).
gate=()
[ -n "${INPUT_FAIL_ON:-}" ] && gate=(--fail-on "$INPUT_FAIL_ON")
"${karpdoctor[@]}" scan "${paths[@]}" "${options[@]}" "${gate[@]}" --format sarif --output "$sarif"
status=$?
if [ "$status" -ge 2 ]; then
  echo "::error title=karpdoctor::the scan could not run (exit $status): see the message above"
  echo "exit-code=$status" >>"$GITHUB_OUTPUT"
  exit "$status"
fi
# Code scanning shows what the code holds after the change: findings the change resolves (baselineState absent) are
# in the job summary, not uploaded as alerts.
if [ -n "${INPUT_AGAINST:-}" ]; then
  node -e '
    const fs = require("fs");
    const log = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    for (const run of log.runs) run.results = run.results.filter((r) => r.baselineState !== "absent");
    fs.writeFileSync(process.argv[1], JSON.stringify(log, null, 2) + "\n");
  ' "$sarif"
fi

# One format per run: the job summary and the counts come from two more scans of the same files, which never fail.
"${karpdoctor[@]}" scan "${paths[@]}" "${options[@]}" --fail-on none --format markdown --output "$scratch/summary.md" &&
  cat "$scratch/summary.md" >>"$GITHUB_STEP_SUMMARY"
"${karpdoctor[@]}" scan "${paths[@]}" "${options[@]}" --fail-on none --format json --output "$scratch/report.json" &&
  KARPDOCTOR_AGAINST="${INPUT_AGAINST:-}" node -e '
    const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    let s = report.summary;
    // Against cluster state: what the change introduces is what gates, and the split is an output of its own.
    if (process.env.KARPDOCTOR_AGAINST) {
      s = { error: 0, warning: 0, info: 0 };
      const split = { introduced: 0, resolved: 0, unchanged: 0 };
      for (const f of report.findings) {
        split[f.change]++;
        if (f.change === "introduced") s[f.severity]++;
      }
      console.log(`introduced=${split.introduced}\nresolved=${split.resolved}\nunchanged=${split.unchanged}`);
    }
    console.log(`errors=${s.error}\nwarnings=${s.warning}\ninfos=${s.info}\nfindings=${s.error + s.warning + s.info}`);
  ' "$scratch/report.json" >>"$GITHUB_OUTPUT"

{
  echo "sarif=$sarif"
  echo "exit-code=$status"
} >>"$GITHUB_OUTPUT"
exit 0
