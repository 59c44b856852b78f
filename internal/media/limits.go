package media

import (
	"strconv"
	"strings"
)

// Provider limits an image in a replayed request can break, besides
// OpenClaw's own ([Limits]). Anthropic rejects a request with an image side
// over 8000 px, and over 2000 px when the request holds more than 20 images.
const (
	ProviderMaxSidePx   = 8000
	ManyImagesMaxSidePx = 2000
	ManyImagesCount     = 20
)

// Exceeded is a set of limits one image breaks.
type Exceeded uint8

const (
	OverMaxSide       Exceeded = 1 << iota // a side over the configured imageMaxDimensionPx
	OverMaxBytes                           // over 5 MiB decoded
	OverProviderSide                       // a side over 8000 px
	OverManyImageSide                      // a side over 2000 px in a request of more than 20 images
)

// CheckSize returns the limits an image of the given displayed size and
// decoded length breaks. maxSide is imageMaxDimensionPx (0 means 1200);
// images is how many images the replayed message list holds. Unknown sizes
// (0) break no side limit.
func CheckSize(width, height, decodedBytes, maxSide, images int) Exceeded {
	if maxSide <= 0 {
		maxSide = DefaultMaxSide
	}
	side := max(width, height)
	var e Exceeded
	if side > maxSide {
		e |= OverMaxSide
	}
	if decodedBytes > MaxBytes {
		e |= OverMaxBytes
	}
	if side > ProviderMaxSidePx {
		e |= OverProviderSide
	}
	if images > ManyImagesCount && side > ManyImagesMaxSidePx {
		e |= OverManyImageSide
	}
	return e
}

// Describe lists the broken limits, e.g. "over 1200 px a side, over 5 MiB
// decoded"; maxSide as given to [CheckSize].
func (e Exceeded) Describe(maxSide int) string {
	if maxSide <= 0 {
		maxSide = DefaultMaxSide
	}
	var parts []string
	if e&OverMaxSide != 0 {
		parts = append(parts, "over "+strconv.Itoa(maxSide)+" px a side (imageMaxDimensionPx)")
	}
	if e&OverMaxBytes != 0 {
		parts = append(parts, "over 5 MiB decoded")
	}
	if e&OverProviderSide != 0 {
		parts = append(parts, "over Anthropic's 8000 px limit")
	}
	if e&OverManyImageSide != 0 {
		parts = append(parts, "over the 2000 px limit for requests of more than 20 images")
	}
	return strings.Join(parts, ", ")
}
