# compare.sh: helpers the bench scripts source to time commands and to set
# two openclaw-doctor binaries (BIN_OLD and BIN) against each other. Runs of
# the two are interleaved, so a change in the machine's load touches both
# alike; medians are compared, and CPU time (user + system) beside wall
# time, because on a shared machine wall time also measures the other
# tenants.

# bench_binary PATH ROOT: prints the binary to time: BIN when set, else
# the tree at ROOT built into PATH.
bench_binary() {
	if [ -n "${BIN:-}" ]; then
		echo "$BIN"
		return
	fi
	(cd "$2" && go build -o "$1" .)
	echo "$1"
}

# bench_time OUT CMD [ARGS...]: runs CMD with stdout to /dev/null and
# appends "wall-s cpu-s peak-rss-KiB" to OUT (GNU time). A failing command
# is still timed, and its exit status returned; its stderr is left in
# OUT.stderr.
bench_time() {
	_out=$1
	shift
	_rc=0
	/usr/bin/time -f '%e %U %S %M' -o "$_out.time" "$@" >/dev/null 2>"$_out.stderr" || _rc=$?
	# GNU time puts "Command exited with non-zero status" first.
	tail -n 1 "$_out.time" | awk '{ print $1, $2 + $3, $4 }' >>"$_out"
	return $_rc
}

# bench_median FILE COLUMN: the median of a column of bench_time's output.
bench_median() {
	cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# bench_compare WHAT OLD-TIMES NEW-TIMES: prints the medians of the two
# binaries side by side, and new / old.
bench_compare() {
	awk -v what="$1" \
		-v ow="$(bench_median "$2" 1)" -v oc="$(bench_median "$2" 2)" -v or="$(bench_median "$2" 3)" \
		-v nw="$(bench_median "$3" 1)" -v nc="$(bench_median "$3" 2)" -v nr="$(bench_median "$3" 3)" \
		-v n="$(wc -l <"$3")" 'BEGIN {
		printf "%s, old vs new (median of %d interleaved runs each):\n", what, n
		printf "  %-8s %10s %10s %14s\n", "", "wall s", "CPU s", "peak RSS MiB"
		printf "  %-8s %10.3f %10.3f %14.1f\n", "old", ow, oc, or / 1024
		printf "  %-8s %10.3f %10.3f %14.1f\n", "new", nw, nc, nr / 1024
		printf "  %-8s %9.3fx %9.3fx %13.3fx\n", "new/old", (ow > 0 ? nw / ow : 0), (oc > 0 ? nc / oc : 0), (or > 0 ? nr / or : 0)
	}'
}
