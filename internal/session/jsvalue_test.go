package session

import (
	"math"
	"testing"
	"time"
)

// TestParseDateMillis: expected values are Node 24's Date.parse (TZ=UTC for
// the local-time forms, which the test pins by setting time.Local).
func TestParseDateMillis(t *testing.T) {
	saved := time.Local
	time.Local = time.UTC
	defer func() { time.Local = saved }()
	tests := []struct {
		in   string
		want int64 // -1 = NaN
	}{
		{"2026-03-14T09:26:53.589Z", 1773480413589},
		{"2026-03-14T09:26:53Z", 1773480413000},
		{"2026-03-14T09:26Z", 1773480360000},
		{"2026-03-14", 1773446400000},
		{"2026-03", 1772323200000},
		{"2026", 1767225600000},
		{"2026-03-14T09:26:53.589123Z", 1773480413589},
		{"2026-03-14T09:26:53.5Z", 1773480413500},
		{"2026-03-14t09:26:53Z", 1773480413000},
		{"2026-03-14T09:26:53.589+02:00", 1773473213589},
		{"2026-03-14T09:26:53.589+0200", 1773473213589},
		{"2026-03-14 09:26:53Z", 1773480413000},
		{"+002026-03-14T00:00:00Z", 1773446400000},
		{"2026-03-14T24:00:00Z", 1773532800000},
		{"2026-02-30T00:00:00Z", 1772409600000},
		{"2026-03-14T09:26:53", 1773480413000},
		{"2026-03-14T09:26:53.589z", 1773480413589},
		{"2026-03-14Z", 1773446400000},
		{"2026-03-14T09:26:53.589+23:59", 1773394073589},
		{"+275760-09-13T00:00:00.000Z", 8640000000000000},
		{"0000-01-01T00:00:00Z", -62167219200000},
		{"2026-02-32", -1},
		{"2026-13-01", -1},
		{"2026-00-10", -1},
		{"2026-03-14T25:00Z", -1},
		{"2026-03-14T09:60Z", -1},
		{"2026-03-14T09:26:60Z", -1},
		{"2026-03-14T9:26Z", -1},
		{"2026-03-14T09:26:53.Z", -1},
		{"2026-03-14T09Z", -1},
		{"2026-03-14T09:26:53+02", -1},
		{"2026-03-14T24:00:01Z", -1},
		{"2026-03-14T09:26:53Z ", -1},
		{"  2026-03-14T09:26:53Z", -1},
		{"-000000-01-01T00:00:00Z", -1},
		{"+275760-09-13T00:00:00.001Z", -1},
		{"2026-03-14T09:26:53.589+25:00", -1},
		{"20260314", -1},
		{"1773480418626", -1},
		{"", -1},
	}
	for _, tc := range tests {
		got, ok := ParseDateMillis(tc.in)
		if tc.want == -1 {
			if ok {
				t.Errorf("ParseDateMillis(%q) = %d, want NaN", tc.in, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("ParseDateMillis(%q) = %d %v, want %d", tc.in, got, ok, tc.want)
		}
	}
}

func TestVersionNumber(t *testing.T) {
	tests := []struct {
		raw  string
		want float64 // NaN allowed
	}{
		{"", 1}, {"null", 1}, {"3", 3}, {"2.5", 2.5}, {`"3"`, 3}, {`" 2 "`, 2}, {`""`, 0},
		{`"0x10"`, 16}, {`"abc"`, math.NaN()}, {`"Infinity"`, math.Inf(1)}, {"true", 1}, {"false", 0},
		{"[]", 0}, {"[3]", 3}, {`["3"]`, 3}, {"[null]", 0}, {"[1,2]", math.NaN()}, {"{}", math.NaN()},
		{`"1e3"`, 1000}, {`".5"`, 0.5}, {`"5."`, 5}, {`"1_000"`, math.NaN()}, {`"0x1p3"`, math.NaN()},
	}
	for _, tc := range tests {
		got := versionNumber([]byte(tc.raw))
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("versionNumber(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}
