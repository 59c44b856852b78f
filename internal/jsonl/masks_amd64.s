//go:build amd64 && !purego

#include "textflag.h"

// func blockMasksAVX2(p *byte) (quotes, backslashes, special uint64)
//
// Bit i of each result describes byte i of the 64 bytes at p: a quote, a
// backslash, or a special byte (below 0x20, or 0x80 and above).
TEXT ·blockMasksAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	MOVL $0x22, AX
	VMOVD AX, X2
	VPBROADCASTB X2, Y2
	MOVL $0x5C, AX
	VMOVD AX, X3
	VPBROADCASTB X3, Y3
	MOVL $0x1F, AX
	VMOVD AX, X4
	VPBROADCASTB X4, Y4

	// quotes
	VPCMPEQB Y0, Y2, Y5
	VPCMPEQB Y1, Y2, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, quotes+8(FP)

	// backslashes
	VPCMPEQB Y0, Y3, Y5
	VPCMPEQB Y1, Y3, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, backslashes+16(FP)

	// special: min(b, 0x1F) == b flags a control byte; or-ing b itself
	// adds the bytes whose top bit is set.
	VPMINUB Y0, Y4, Y5
	VPMINUB Y1, Y4, Y6
	VPCMPEQB Y5, Y0, Y5
	VPCMPEQB Y6, Y1, Y6
	VPOR Y5, Y0, Y5
	VPOR Y6, Y1, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, special+24(FP)

	VZEROUPPER
	RET
