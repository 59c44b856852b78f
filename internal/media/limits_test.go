package media

import "testing"

func TestCheckSize(t *testing.T) {
	tests := []struct {
		name                   string
		w, h, n, maxSide, imgs int
		want                   Exceeded
		text                   string
	}{
		{"within", 1200, 900, 1 << 20, 0, 1, 0, ""},
		{"over the default side", 1201, 10, 100, 0, 1, OverMaxSide, "over 1200 px a side (imageMaxDimensionPx)"},
		{"configured side", 1500, 10, 100, 2000, 1, 0, ""},
		{"bytes", 100, 100, MaxBytes + 1, 0, 1, OverMaxBytes, "over 5 MiB decoded"},
		{"anthropic hard limit", 8001, 10, 100, 10000, 1, OverProviderSide, "over Anthropic's 8000 px limit"},
		{"many images, 20 is not many", 2500, 10, 100, 3000, 20, 0, ""},
		{"many images", 2500, 10, 100, 3000, 21, OverManyImageSide, "over the 2000 px limit for requests of more than 20 images"},
		{"all", 9000, 9000, MaxBytes * 2, 0, 30, OverMaxSide | OverMaxBytes | OverProviderSide | OverManyImageSide,
			"over 1200 px a side (imageMaxDimensionPx), over 5 MiB decoded, over Anthropic's 8000 px limit, over the 2000 px limit for requests of more than 20 images"},
		{"unknown size", 0, 0, 100, 0, 50, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckSize(tt.w, tt.h, tt.n, tt.maxSide, tt.imgs)
			if got != tt.want || got.Describe(tt.maxSide) != tt.text {
				t.Fatalf("CheckSize = %b %q, want %b %q", got, got.Describe(tt.maxSide), tt.want, tt.text)
			}
		})
	}
}
