# hostile-setup.sh, sourced by the hostile-input bench scripts: sets here
# (the repository), work (a temp folder removed on exit), bin (the binary
# given as $1, or one built from here) and builds $work/gen (bench/hostilegen).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)
bin=${1:-}
work=$(mktemp -d /tmp/hostile-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
	bin=$work/openclaw-doctor
	(cd "$here" && go build -o "$bin" .) || exit 1
fi
(cd "$here" && go build -o "$work/gen" ./bench/hostilegen) || exit 1
