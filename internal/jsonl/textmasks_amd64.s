//go:build amd64 && !purego

#include "textflag.h"

// func plainQuotesAVX2(p *byte, n int, q *uint64) bool
//
// For each of the n blocks of 64 bytes at p, the mask of its quotes goes
// to q (a word a block); the result is whether no byte of them is a
// backslash, below 0x20 or 0x80 and above (signed, those are below zero:
// 0x20 > b holds for both).
TEXT ·plainQuotesAVX2(SB), NOSPLIT, $0-25
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ q+16(FP), DI
	// '"', '\\' and 0x20 in every byte of Y2, Y3 and Y4.
	MOVL $0x22222222, AX
	MOVD AX, X2
	VPBROADCASTD X2, Y2
	MOVL $0x5C5C5C5C, AX
	MOVD AX, X3
	VPBROADCASTD X3, Y3
	MOVL $0x20202020, AX
	MOVD AX, X4
	VPBROADCASTD X4, Y4
	VPXOR Y9, Y9, Y9 // the stops seen

loop:
	TESTQ CX, CX
	JZ done
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPCMPEQB Y2, Y0, Y5
	VPCMPEQB Y2, Y1, Y6
	VPMOVMSKB Y5, R8
	VPMOVMSKB Y6, AX
	SHLQ $32, AX
	ORQ AX, R8
	MOVQ R8, (DI)
	VPCMPEQB Y3, Y0, Y5
	VPCMPEQB Y3, Y1, Y6
	VPCMPGTB Y0, Y4, Y7
	VPCMPGTB Y1, Y4, Y8
	VPOR Y5, Y9, Y9
	VPOR Y6, Y9, Y9
	VPOR Y7, Y9, Y9
	VPOR Y8, Y9, Y9
	ADDQ $64, SI
	ADDQ $8, DI
	DECQ CX
	JMP loop

done:
	VPTEST Y9, Y9
	SETEQ AX
	MOVB AX, ret+24(FP)
	VZEROUPPER
	RET
