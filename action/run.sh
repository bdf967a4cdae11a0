#!/usr/bin/env bash
# The crifresh GitHub Action (action.yml) minus GitHub itself: builds the coordinator's command line from the
# INPUT_* variables, runs it, and turns its JSON report into step outputs ($GITHUB_OUTPUT), one annotation per
# failed or blocked node, and the job summary ($GITHUB_STEP_SUMMARY, written by the coordinator itself).
# Exits with the coordinator's exit code, so a failed run fails the step (docs/coordinator.md, "Exit codes").
# Needs bash, coreutils, curl and sha256sum (only to download a release jar), jq, and Java 17+.
set -euo pipefail

fail() {
  echo "::error title=crifresh::$(escape_data "$1")"
  echo "crifresh action: $1" >&2
  write_output result error
  write_output exit-code 2
  exit 2
}

# Workflow-command escaping (the runner's toolkit: escapeData / escapeProperty).
escape_data() { local s=${1//%/%25}; s=${s//$'\r'/%0D}; printf '%s' "${s//$'\n'/%0A}"; }

write_output() {
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"
  fi
}

command=${INPUT_COMMAND:-rollout}
case "$command" in
  plan|rollout) ;;
  *) fail "input command must be plan or rollout, not '$command'" ;;
esac

# A boolean input: true or false (empty: false), as GitHub passes `with: {force: true}`.
for boolean in FORCE DELETE_EMPTYDIR_DATA; do
  var=INPUT_$boolean
  case "${!var:-}" in
    ''|true|false) ;;
    *) fail "input $(tr 'A-Z_' 'a-z-' <<<"$boolean") must be true or false, not '${!var}'" ;;
  esac
done

command -v jq >/dev/null 2>&1 || fail "jq is not installed (GitHub's runners have it; Debian/Ubuntu: apt-get install jq)"

# --- Java 17+ ---
java_bin=${INPUT_JAVA:-}
if [[ -z "$java_bin" ]]; then
  for home in "${JAVA_HOME_17_X64:-}" "${JAVA_HOME_17_ARM64:-}" "${JAVA_HOME_21_X64:-}" "${JAVA_HOME_21_ARM64:-}" "${JAVA_HOME:-}"; do
    if [[ -n "$home" && -x "$home/bin/java" ]]; then java_bin=$home/bin/java; break; fi
  done
fi
java_bin=${java_bin:-java}
command -v "$java_bin" >/dev/null 2>&1 || fail "no java found: set up Java 17 or later (actions/setup-java) or give the input java"
java_major=$("$java_bin" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n1)
if [[ ! "$java_major" =~ ^[0-9]+$ ]] || (( java_major < 17 )); then
  fail "$java_bin is Java ${java_major:-of unknown version}; crifresh-coordinator needs Java 17 or later"
fi

# --- the coordinator jar: given, or the pinned release verified against its published SHA-256 ---
jar=${INPUT_JAR:-}
if [[ -z "$jar" ]]; then
  version=${INPUT_VERSION:?input version is empty}
  version=${version#v}
  repo=${GITHUB_ACTION_REPOSITORY:-}
  # composite actions get an empty GITHUB_ACTION_REPOSITORY (actions/runner#2525); the action's checkout
  # path is <runner>/_actions/<owner>/<repo>/<ref>
  if [[ -z "$repo" && "${GITHUB_ACTION_PATH:-}" == */_actions/*/*/* ]]; then
    rest=${GITHUB_ACTION_PATH##*/_actions/}
    owner=${rest%%/*}
    rest=${rest#*/}
    repo=$owner/${rest%%/*}
  fi
  [[ -n "$repo" ]] || fail "cannot tell which repository to download crifresh-coordinator $version from: give the input jar"
  cache=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/crifresh/$version
  jar=$cache/crifresh-coordinator.jar
  if [[ ! -f "$jar" ]]; then
    mkdir -p "$cache"
    # the runner's GitHub (GitHub Enterprise Server: its own URL); the release's assets: .ci/release-assets
    server=${GITHUB_SERVER_URL:-https://github.com}
    url=${server%/}/$repo/releases/download/v$version/crifresh-coordinator.jar
    echo "Downloading $url" >&2
    curl -fsSL --retry 3 --connect-timeout 20 -o "$jar.part" "$url" || fail "cannot download $url"
    curl -fsSL --retry 3 --connect-timeout 20 -o "$jar.sha256.part" "$url.sha256" || fail "cannot download $url.sha256"
    expected=$(awk '{print $1; exit}' "$jar.sha256.part")
    actual=$(sha256sum "$jar.part" | awk '{print $1}')
    if [[ ! "$expected" =~ ^[0-9a-f]{64}$ || "$expected" != "$actual" ]]; then
      rm -f "$jar.part" "$jar.sha256.part"
      fail "checksum mismatch, not running it: the SHA-256 of $url is $actual, but $url.sha256 says ${expected:-nothing}"
    fi
    mv "$jar.sha256.part" "$jar.sha256"
    mv "$jar.part" "$jar"
  fi
fi
[[ -f "$jar" ]] || fail "input jar: no such file: $jar"

# --- the command line ---
report=${INPUT_REPORT:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/crifresh-$command.json}
rm -f "$report"
args=("$command")
add() { if [[ -n "$2" ]]; then args+=("$1=$2"); fi; }
add --kubeconfig "${INPUT_KUBECONFIG:-}"
add --context "${INPUT_CONTEXT:-}"
if [[ -n "${INPUT_TRUST_BUNDLE:-}" ]]; then
  args+=("--trust-bundle=$INPUT_TRUST_BUNDLE")
else
  add --trust-secret "${INPUT_TRUST_SECRET:-}"
fi
if [[ -n "${INPUT_CREDENTIAL_SECRET:-}" && -n "${INPUT_CREDENTIAL_FILE:-}" ]]; then
  fail "give one of the inputs credential-secret and credential-file, not both"
fi
add --credential-secret "${INPUT_CREDENTIAL_SECRET:-}"
add --credential-file "${INPUT_CREDENTIAL_FILE:-}"
add --registry "${INPUT_REGISTRY:-}"
add --talosconfig "${INPUT_TALOSCONFIG:-}"
if [[ -n "${INPUT_PULL_PROOF_IMAGE:-}" ]]; then
  args+=("--pull-proof=${INPUT_PULL_PROOF:-rebooted}" "--pull-proof-image=$INPUT_PULL_PROOF_IMAGE")
fi
if [[ "$command" == rollout ]]; then
  add --max-unavailable "${INPUT_MAX_UNAVAILABLE:-}"
  add --action "${INPUT_ACTION:-}"
  add --reboot-driver "${INPUT_REBOOT_DRIVER:-}"
  add --self-node "${INPUT_SELF_NODE:-}"
  if [[ "${INPUT_FORCE:-}" == true ]]; then args+=("--force"); fi
  if [[ "${INPUT_DELETE_EMPTYDIR_DATA:-}" == true ]]; then args+=("--delete-emptydir-data"); fi
else
  for ignored in MAX_UNAVAILABLE ACTION REBOOT_DRIVER SELF_NODE; do
    var=INPUT_$ignored
    if [[ -n "${!var:-}" ]]; then
      echo "crifresh action: input $(tr 'A-Z_' 'a-z-' <<<"$ignored") applies to rollout only; plan ignores it" >&2
    fi
  done
  for ignored in FORCE DELETE_EMPTYDIR_DATA; do
    var=INPUT_$ignored
    if [[ "${!var:-}" == true ]]; then
      echo "crifresh action: input $(tr 'A-Z_' 'a-z-' <<<"$ignored") applies to rollout only; plan ignores it" >&2
    fi
  done
fi
while IFS= read -r line; do
  line=${line#"${line%%[![:space:]]*}"}
  line=${line%"${line##*[![:space:]]}"}
  if [[ -n "$line" ]]; then args+=("$line"); fi
done <<< "${INPUT_ARGS:-}"
args+=("--report=$report")
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  args+=("--step-summary=$GITHUB_STEP_SUMMARY")
fi

# --- run: stdout and stderr stay live in the log; stderr is also kept for the error annotation ---
errlog=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/crifresh-stderr.XXXXXX")
trap 'rm -f "$errlog"' EXIT
# C1 only and the serial GC: a deploy job's run is short and its fixed cost is JVM start-up; this halves
# the CPU of `plan` on a small cluster (docs/performance.md, "Coordinator start"). The same as the image's.
jvm_flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dio.netty.jfr.enabled=false)
echo "crifresh action: $java_bin ${jvm_flags[*]} -jar $jar ${args[*]}" >&2
set +e
{ "$java_bin" "${jvm_flags[@]}" -jar "$jar" "${args[@]}" 2>&1 1>&3 3>&- | tee "$errlog" >&2; code=${PIPESTATUS[0]}; } 3>&1
set -e

# --- outputs and annotations from the report ---
if [[ -s "$report" ]] && jq -e . "$report" >/dev/null 2>&1; then
  write_output result "$(jq -r '.result' "$report")"
  write_output rebooted "$(jq -r '.summary.rebooted // 0' "$report")"
  write_output skipped "$(jq -r '.summary.skipped // 0' "$report")"
  write_output failed "$(jq -r '.summary.failed // 0' "$report")"
  write_output report "$report"
  annotations=$(jq -r '
    def data: gsub("%"; "%25") | gsub("\r"; "%0D") | gsub("\n"; "%0A");
    def prop: data | gsub(":"; "%3A") | gsub(","; "%2C");
    ([.nodes[] | select(.outcome == "failed") | .name]) as $failed
    | (.nodes[] | select(.outcome == "failed")
        | "::error title=" + ("crifresh: " + .name + " failed" | prop) + "::"
          + (.name + " (" + .verdict + ", " + .reason + "): " + (.detail // "failed") | data)),
      ((.gates // [])[] | select(.node != null and (.result == "blocked" or .result == "timed-out"))
        | select(.node as $n | $failed | index($n) | not)
        | "::warning title=" + ("crifresh: " + .node + " blocked" | prop) + "::"
          + (.node + ": " + .gate + " gate " + .result + ": " + (.detail // "") | data)),
      ((.warnings // [])[] | "::warning title=" + ("crifresh warning" | prop) + "::" + data),
      (select(.error != null and ($failed | length) == 0)
        | "::error title=" + (if $code == 6 then "crifresh: no node attests its boot (installation?)"
                              else "crifresh " + (.result // "run") end | prop) + "::" + (.error | data))
  ' --argjson code "$code" "$report")
  if [[ -n "$annotations" ]]; then
    printf '%s\n' "$annotations"
  elif (( code != 0 )); then
    # e.g. lease-lost (exit 4): the step fails, so say why
    echo "::error title=crifresh $command::$(escape_data "crifresh-coordinator exited $code, result $(jq -r '.result' "$report")")"
  fi
else
  last=$(grep -v '^[[:space:]]*$' "$errlog" | tail -n 1 || true)
  write_output result error
  write_output rebooted 0
  write_output skipped 0
  write_output failed 0
  write_output report ""
  echo "::error title=crifresh $command::$(escape_data "crifresh-coordinator exited $code without a report: ${last:-no output}")"
  if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    printf '### crifresh %s: error (exit %s)\n\n```\n%s\n```\n\n' "$command" "$code" "${last:-no output}" >> "$GITHUB_STEP_SUMMARY"
  fi
fi
write_output exit-code "$code"
exit "$code"
