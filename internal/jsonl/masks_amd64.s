//go:build amd64 && !purego

#include "textflag.h"

// Nibble tables of the two-byte escapes' second bytes ("\/bfnrt): a byte
// is one of them when the entries of its low and its high nibble share a
// bit. Each table is repeated for both 128-bit lanes.
DATA escLow<>+0(SB)/8, $0x00040008000D0000
DATA escLow<>+8(SB)/8, $0x0104000200000000
DATA escLow<>+16(SB)/8, $0x00040008000D0000
DATA escLow<>+24(SB)/8, $0x0104000200000000
GLOBL escLow<>(SB), RODATA|NOPTR, $32
DATA escHigh<>+0(SB)/8, $0x0804020000010000
DATA escHigh<>+8(SB)/8, $0
DATA escHigh<>+16(SB)/8, $0x0804020000010000
DATA escHigh<>+24(SB)/8, $0
GLOBL escHigh<>(SB), RODATA|NOPTR, $32

// func blockMasksAVX2(p *byte, m *blockMask)
//
// Bit i of each of m's masks describes byte i of the 64 bytes at p: a quote, a
// backslash, a control byte (below 0x20), a byte 0x80 or above, or a byte
// that is not one of "\/bfnrt (this last only in a block with a backslash:
// 0 otherwise), and the UTF-8 masks of blockMask.
TEXT ·blockMasksAVX2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ m+8(FP), DI
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
	MOVQ AX, 0(DI)

	// backslashes
	VPCMPEQB Y0, Y3, Y5
	VPCMPEQB Y1, Y3, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 8(DI)
	MOVQ AX, R8

	// ctl: min(b, 0x1F) == b
	VPMINUB Y0, Y4, Y5
	VPMINUB Y1, Y4, Y6
	VPCMPEQB Y5, Y0, Y5
	VPCMPEQB Y6, Y1, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 16(DI)

	// high: the top bits themselves
	VPMOVMSKB Y0, AX
	VPMOVMSKB Y1, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 24(DI)
	MOVQ AX, R9

	// notSimple: the nibble tables share no bit. Only the bytes after a
	// backslash are tested against it: without backslashes it is 0.
	MOVQ $0, 32(DI)
	TESTQ R8, R8
	JZ utf8
	MOVL $0x0F, AX
	VMOVD AX, X4
	VPBROADCASTB X4, Y4
	VMOVDQU escLow<>(SB), Y7
	VMOVDQU escHigh<>(SB), Y8
	VPXOR Y9, Y9, Y9
	VPAND Y0, Y4, Y5
	VPSRLW $4, Y0, Y6
	VPAND Y6, Y4, Y6
	VPSHUFB Y5, Y7, Y5
	VPSHUFB Y6, Y8, Y6
	VPAND Y5, Y6, Y5
	VPCMPEQB Y9, Y5, Y5
	VPMOVMSKB Y5, AX
	VPAND Y1, Y4, Y5
	VPSRLW $4, Y1, Y6
	VPAND Y6, Y4, Y6
	VPSHUFB Y5, Y7, Y5
	VPSHUFB Y6, Y8, Y6
	VPAND Y5, Y6, Y5
	VPCMPEQB Y9, Y5, Y5
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 32(DI)

	// The UTF-8 masks, only in a block with bytes that are not ASCII
	// (0 otherwise): continuation bytes (10xxxxxx), the leading bytes of
	// two-byte sequences (C2-DF), and those of three-byte sequences whose
	// second byte may be any continuation byte (E1-EC, EE-EF).
utf8:
	MOVQ $0, 40(DI)
	MOVQ $0, 48(DI)
	MOVQ $0, 56(DI)
	TESTQ R9, R9
	JZ done
	MOVL $0xC0, AX
	VMOVD AX, X2
	VPBROADCASTB X2, Y2
	MOVL $0x80, AX
	VMOVD AX, X3
	VPBROADCASTB X3, Y3
	MOVL $0xC2, AX
	VMOVD AX, X4
	VPBROADCASTB X4, Y4
	MOVL $0xDF, AX
	VMOVD AX, X5
	VPBROADCASTB X5, Y5
	MOVL $0xE1, AX
	VMOVD AX, X6
	VPBROADCASTB X6, Y6
	MOVL $0xEF, AX
	VMOVD AX, X7
	VPBROADCASTB X7, Y7
	MOVL $0xED, AX
	VMOVD AX, X8
	VPBROADCASTB X8, Y8
	VPAND Y0, Y2, Y9
	VPCMPEQB Y9, Y3, Y9
	VPMAXUB Y0, Y4, Y10
	VPCMPEQB Y10, Y0, Y10
	VPMINUB Y0, Y5, Y12
	VPCMPEQB Y12, Y0, Y12
	VPAND Y12, Y10, Y10
	VPMAXUB Y0, Y6, Y11
	VPCMPEQB Y11, Y0, Y11
	VPMINUB Y0, Y7, Y12
	VPCMPEQB Y12, Y0, Y12
	VPAND Y12, Y11, Y11
	VPCMPEQB Y0, Y8, Y12
	VPANDN Y11, Y12, Y11
	VPMOVMSKB Y9, R10
	VPMOVMSKB Y10, R11
	VPMOVMSKB Y11, R12
	VPAND Y1, Y2, Y9
	VPCMPEQB Y9, Y3, Y9
	VPMAXUB Y1, Y4, Y10
	VPCMPEQB Y10, Y1, Y10
	VPMINUB Y1, Y5, Y12
	VPCMPEQB Y12, Y1, Y12
	VPAND Y12, Y10, Y10
	VPMAXUB Y1, Y6, Y11
	VPCMPEQB Y11, Y1, Y11
	VPMINUB Y1, Y7, Y12
	VPCMPEQB Y12, Y1, Y12
	VPAND Y12, Y11, Y11
	VPCMPEQB Y1, Y8, Y12
	VPANDN Y11, Y12, Y11
	VPMOVMSKB Y9, AX
	SHLQ $32, AX
	ORQ AX, R10
	MOVQ R10, 40(DI)
	VPMOVMSKB Y10, AX
	SHLQ $32, AX
	ORQ AX, R11
	MOVQ R11, 48(DI)
	VPMOVMSKB Y11, AX
	SHLQ $32, AX
	ORQ AX, R12
	MOVQ R12, 56(DI)

done:
	VZEROUPPER
	RET

// Bytes repeated over 32, the constants of plainBlocksAVX2's loop, read
// from memory rather than broadcast in each block.
DATA nib0F<>+0(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nib0F<>+8(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nib0F<>+16(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nib0F<>+24(SB)/8, $0x0F0F0F0F0F0F0F0F
GLOBL nib0F<>(SB), RODATA|NOPTR, $32
DATA c0<>+0(SB)/8, $0xC0C0C0C0C0C0C0C0
DATA c0<>+8(SB)/8, $0xC0C0C0C0C0C0C0C0
DATA c0<>+16(SB)/8, $0xC0C0C0C0C0C0C0C0
DATA c0<>+24(SB)/8, $0xC0C0C0C0C0C0C0C0
GLOBL c0<>(SB), RODATA|NOPTR, $32
DATA x80<>+0(SB)/8, $0x8080808080808080
DATA x80<>+8(SB)/8, $0x8080808080808080
DATA x80<>+16(SB)/8, $0x8080808080808080
DATA x80<>+24(SB)/8, $0x8080808080808080
GLOBL x80<>(SB), RODATA|NOPTR, $32
DATA xC2<>+0(SB)/8, $0xC2C2C2C2C2C2C2C2
DATA xC2<>+8(SB)/8, $0xC2C2C2C2C2C2C2C2
DATA xC2<>+16(SB)/8, $0xC2C2C2C2C2C2C2C2
DATA xC2<>+24(SB)/8, $0xC2C2C2C2C2C2C2C2
GLOBL xC2<>(SB), RODATA|NOPTR, $32
DATA xDF<>+0(SB)/8, $0xDFDFDFDFDFDFDFDF
DATA xDF<>+8(SB)/8, $0xDFDFDFDFDFDFDFDF
DATA xDF<>+16(SB)/8, $0xDFDFDFDFDFDFDFDF
DATA xDF<>+24(SB)/8, $0xDFDFDFDFDFDFDFDF
GLOBL xDF<>(SB), RODATA|NOPTR, $32
DATA xE1<>+0(SB)/8, $0xE1E1E1E1E1E1E1E1
DATA xE1<>+8(SB)/8, $0xE1E1E1E1E1E1E1E1
DATA xE1<>+16(SB)/8, $0xE1E1E1E1E1E1E1E1
DATA xE1<>+24(SB)/8, $0xE1E1E1E1E1E1E1E1
GLOBL xE1<>(SB), RODATA|NOPTR, $32
DATA xEF<>+0(SB)/8, $0xEFEFEFEFEFEFEFEF
DATA xEF<>+8(SB)/8, $0xEFEFEFEFEFEFEFEF
DATA xEF<>+16(SB)/8, $0xEFEFEFEFEFEFEFEF
DATA xEF<>+24(SB)/8, $0xEFEFEFEFEFEFEFEF
GLOBL xEF<>(SB), RODATA|NOPTR, $32
DATA xED<>+0(SB)/8, $0xEDEDEDEDEDEDEDED
DATA xED<>+8(SB)/8, $0xEDEDEDEDEDEDEDED
DATA xED<>+16(SB)/8, $0xEDEDEDEDEDEDEDED
DATA xED<>+24(SB)/8, $0xEDEDEDEDEDEDEDED
GLOBL xED<>(SB), RODATA|NOPTR, $32

// func plainBlocksAVX2(p *byte, n int) (consumed int, escaped bool)
//
// plainBlocksAVX2 steps over the 64-byte blocks at p (n bytes are left in
// the line) that a string body fills without anything to look at closer:
// no quote that ends the string, no control byte, every escape a two-byte
// one within the block, every byte that is not ASCII part of a two- or
// three-byte sequence of the block that admits any continuation byte (see
// validSimpleUTF8). It returns the bytes stepped over (whole blocks) and
// whether they hold an escape.
TEXT ·plainBlocksAVX2(SB), NOSPLIT, $0-25
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ DX, DX
	XORQ R13, R13
	MOVL $0x22, AX
	VMOVD AX, X2
	VPBROADCASTB X2, Y2
	MOVL $0x5C, AX
	VMOVD AX, X3
	VPBROADCASTB X3, Y3
	MOVL $0x1F, AX
	VMOVD AX, X4
	VPBROADCASTB X4, Y4
	MOVQ $0x5555555555555555, R14

loop:
	LEAQ 64(DX), AX
	CMPQ AX, CX
	JGT ret
	XORQ R12, R12
	VMOVDQU (SI)(DX*1), Y0
	VMOVDQU 32(SI)(DX*1), Y1

	VPCMPEQB Y0, Y2, Y5
	VPCMPEQB Y1, Y2, Y6
	VPMOVMSKB Y5, R8
	VPMOVMSKB Y6, AX
	SHLQ $32, AX
	ORQ AX, R8
	VPCMPEQB Y0, Y3, Y5
	VPCMPEQB Y1, Y3, Y6
	VPMOVMSKB Y5, R9
	VPMOVMSKB Y6, AX
	SHLQ $32, AX
	ORQ AX, R9
	VPMINUB Y0, Y4, Y5
	VPMINUB Y1, Y4, Y6
	VPCMPEQB Y5, Y0, Y5
	VPCMPEQB Y6, Y1, Y6
	VPMOVMSKB Y5, R10
	VPMOVMSKB Y6, AX
	SHLQ $32, AX
	ORQ AX, R10
	VPMOVMSKB Y0, R11
	VPMOVMSKB Y1, AX
	SHLQ $32, AX
	ORQ AX, R11
	MOVQ R8, AX
	ORQ R9, AX
	ORQ R10, AX
	ORQ R11, AX
	JZ next
	TESTQ R10, R10
	JNZ ret
	TESTQ R9, R9
	JNZ escapes
	TESTQ R8, R8
	JNZ ret
	JMP utf8

escapes:
	// R12 = the escaped bytes, as escapedBytes computes them; a carry out
	// (the last byte escapes the next block's first) ends the run.
	MOVQ R9, BX
	SHLQ $1, BX
	MOVQ R14, R12
	NOTQ R12
	ANDQ R9, R12
	MOVQ BX, AX
	NOTQ AX
	ANDQ AX, R12
	ADDQ R9, R12
	JC ret
	SHLQ $1, R12
	XORQ R14, R12
	ANDQ BX, R12
	// A quote that is not escaped ends the string.
	MOVQ R12, AX
	NOTQ AX
	ANDQ R8, AX
	JNZ ret
	// Every escaped byte must make a two-byte escape.
	VMOVDQU escLow<>(SB), Y11
	VMOVDQU escHigh<>(SB), Y12
	VPXOR Y9, Y9, Y9
	VPAND nib0F<>(SB), Y0, Y5
	VPSRLW $4, Y0, Y6
	VPAND nib0F<>(SB), Y6, Y6
	VPSHUFB Y5, Y11, Y5
	VPSHUFB Y6, Y12, Y6
	VPAND Y5, Y6, Y5
	VPCMPEQB Y9, Y5, Y5
	VPAND nib0F<>(SB), Y1, Y7
	VPSRLW $4, Y1, Y6
	VPAND nib0F<>(SB), Y6, Y6
	VPSHUFB Y7, Y11, Y7
	VPSHUFB Y6, Y12, Y6
	VPAND Y7, Y6, Y7
	VPCMPEQB Y9, Y7, Y7
	VPMOVMSKB Y5, BX
	VPMOVMSKB Y7, AX
	SHLQ $32, AX
	ORQ AX, BX
	ANDQ R12, BX
	JNZ ret
	MOVQ $1, R12 // the block has an escape

utf8:
	TESTQ R11, R11
	JZ next
	VPAND c0<>(SB), Y0, Y12
	VPCMPEQB x80<>(SB), Y12, Y12
	VPMAXUB xC2<>(SB), Y0, Y13
	VPCMPEQB Y13, Y0, Y13
	VPMINUB xDF<>(SB), Y0, Y15
	VPCMPEQB Y15, Y0, Y15
	VPAND Y15, Y13, Y13
	VPMAXUB xE1<>(SB), Y0, Y14
	VPCMPEQB Y14, Y0, Y14
	VPMINUB xEF<>(SB), Y0, Y15
	VPCMPEQB Y15, Y0, Y15
	VPAND Y15, Y14, Y14
	VPCMPEQB xED<>(SB), Y0, Y15
	VPANDN Y14, Y15, Y14
	VPMOVMSKB Y12, R8
	VPMOVMSKB Y13, R9
	VPMOVMSKB Y14, R10
	VPAND c0<>(SB), Y1, Y12
	VPCMPEQB x80<>(SB), Y12, Y12
	VPMAXUB xC2<>(SB), Y1, Y13
	VPCMPEQB Y13, Y1, Y13
	VPMINUB xDF<>(SB), Y1, Y15
	VPCMPEQB Y15, Y1, Y15
	VPAND Y15, Y13, Y13
	VPMAXUB xE1<>(SB), Y1, Y14
	VPCMPEQB Y14, Y1, Y14
	VPMINUB xEF<>(SB), Y1, Y15
	VPCMPEQB Y15, Y1, Y15
	VPAND Y15, Y14, Y14
	VPCMPEQB xED<>(SB), Y1, Y15
	VPANDN Y14, Y15, Y14
	VPMOVMSKB Y12, AX
	SHLQ $32, AX
	ORQ AX, R8
	VPMOVMSKB Y13, AX
	SHLQ $32, AX
	ORQ AX, R9
	VPMOVMSKB Y14, AX
	SHLQ $32, AX
	ORQ AX, R10
	// R8 continuation bytes, R9 two-byte leads, R10 three-byte leads: the
	// leads are exactly the non-continuation bytes that are not ASCII,
	// none runs past the block, and they call for exactly R8.
	MOVQ R8, AX
	NOTQ AX
	ANDQ R11, AX
	MOVQ R9, BX
	ORQ R10, BX
	CMPQ AX, BX
	JNE ret
	MOVQ R9, AX
	SHRQ $63, AX
	MOVQ R10, BX
	SHRQ $62, BX
	ORQ BX, AX
	JNZ ret
	MOVQ R9, AX
	SHLQ $1, AX
	MOVQ R10, BX
	SHLQ $1, BX
	ORQ BX, AX
	SHLQ $1, BX
	ORQ BX, AX
	CMPQ AX, R8
	JNE ret

next:
	ORQ R12, R13
	ADDQ $64, DX
	JMP loop

ret:
	VZEROUPPER
	MOVQ DX, consumed+16(FP)
	MOVB R13, escaped+24(FP)
	RET
