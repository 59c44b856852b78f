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

// Bytes repeated over 32, read as memory operands.
DATA quote<>+0(SB)/8, $0x2222222222222222
DATA quote<>+8(SB)/8, $0x2222222222222222
DATA quote<>+16(SB)/8, $0x2222222222222222
DATA quote<>+24(SB)/8, $0x2222222222222222
GLOBL quote<>(SB), RODATA|NOPTR, $32
DATA bslash<>+0(SB)/8, $0x5C5C5C5C5C5C5C5C
DATA bslash<>+8(SB)/8, $0x5C5C5C5C5C5C5C5C
DATA bslash<>+16(SB)/8, $0x5C5C5C5C5C5C5C5C
DATA bslash<>+24(SB)/8, $0x5C5C5C5C5C5C5C5C
GLOBL bslash<>(SB), RODATA|NOPTR, $32
DATA x1F<>+0(SB)/8, $0x1F1F1F1F1F1F1F1F
DATA x1F<>+8(SB)/8, $0x1F1F1F1F1F1F1F1F
DATA x1F<>+16(SB)/8, $0x1F1F1F1F1F1F1F1F
DATA x1F<>+24(SB)/8, $0x1F1F1F1F1F1F1F1F
GLOBL x1F<>(SB), RODATA|NOPTR, $32
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

// The 64 bytes of a block are in Y0 (the first 32) and Y1.

// MOVEMASK2 sets r to the 64-bit mask of the byte masks a (bytes 0-31)
// and b (32-63). It clobbers AX.
#define MOVEMASK2(a, b, r) \
	VPMOVMSKB a, r; \
	VPMOVMSKB b, AX; \
	SHLQ $32, AX; \
	ORQ AX, r

// EQ2 sets r to the mask of the block's bytes equal to the constant c.
#define EQ2(c, r) \
	VPCMPEQB c, Y0, Y5; \
	VPCMPEQB c, Y1, Y6; \
	MOVEMASK2(Y5, Y6, r)

// CTL2 sets r to the mask of the block's control bytes: min(b, 0x1F) == b.
#define CTL2(r) \
	VPMINUB x1F<>(SB), Y0, Y5; \
	VPMINUB x1F<>(SB), Y1, Y6; \
	VPCMPEQB Y5, Y0, Y5; \
	VPCMPEQB Y6, Y1, Y6; \
	MOVEMASK2(Y5, Y6, r)

// NOTSIMPLE1 sets dst to 0xFF for each byte of src whose nibble-table
// entries share no bit: not one of "\/bfnrt. Y11 and Y12 hold the tables,
// Y9 zero; it clobbers Y6.
#define NOTSIMPLE1(src, dst) \
	VPAND nib0F<>(SB), src, dst; \
	VPSRLW $4, src, Y6; \
	VPAND nib0F<>(SB), Y6, Y6; \
	VPSHUFB dst, Y11, dst; \
	VPSHUFB Y6, Y12, Y6; \
	VPAND dst, Y6, dst; \
	VPCMPEQB Y9, dst, dst

// NOTSIMPLE2 sets r to the mask of the block's bytes that are not one of
// "\/bfnrt.
#define NOTSIMPLE2(r) \
	VMOVDQU escLow<>(SB), Y11; \
	VMOVDQU escHigh<>(SB), Y12; \
	VPXOR Y9, Y9, Y9; \
	NOTSIMPLE1(Y0, Y5); \
	NOTSIMPLE1(Y1, Y7); \
	MOVEMASK2(Y5, Y7, r)

// UTF8HALF sets, for the 32 bytes of src, Y12 to the continuation bytes
// (10xxxxxx), Y13 to the leading bytes of two-byte sequences (C2-DF) and
// Y14 to those of three-byte sequences whose second byte may be any
// continuation byte (E1-EC, EE-EF). It clobbers Y15.
#define UTF8HALF(src) \
	VPAND c0<>(SB), src, Y12; \
	VPCMPEQB x80<>(SB), Y12, Y12; \
	VPMAXUB xC2<>(SB), src, Y13; \
	VPCMPEQB Y13, src, Y13; \
	VPMINUB xDF<>(SB), src, Y15; \
	VPCMPEQB Y15, src, Y15; \
	VPAND Y15, Y13, Y13; \
	VPMAXUB xE1<>(SB), src, Y14; \
	VPCMPEQB Y14, src, Y14; \
	VPMINUB xEF<>(SB), src, Y15; \
	VPCMPEQB Y15, src, Y15; \
	VPAND Y15, Y14, Y14; \
	VPCMPEQB xED<>(SB), src, Y15; \
	VPANDN Y14, Y15, Y14

// UTF8MASKS sets cont, lead2 and lead3 to the block's masks of UTF8HALF's
// three kinds of bytes. It clobbers AX.
#define UTF8MASKS(cont, lead2, lead3) \
	UTF8HALF(Y0); \
	VPMOVMSKB Y12, cont; \
	VPMOVMSKB Y13, lead2; \
	VPMOVMSKB Y14, lead3; \
	UTF8HALF(Y1); \
	VPMOVMSKB Y12, AX; \
	SHLQ $32, AX; \
	ORQ AX, cont; \
	VPMOVMSKB Y13, AX; \
	SHLQ $32, AX; \
	ORQ AX, lead2; \
	VPMOVMSKB Y14, AX; \
	SHLQ $32, AX; \
	ORQ AX, lead3

// func blockMasksAVX2(p *byte, m *blockMask)
//
// Bit i of each of m's masks describes byte i of the 64 bytes at p: a
// quote, a backslash, a control byte (below 0x20), a byte 0x80 or above,
// a byte that is not one of "\/bfnrt (only in a block with a backslash: 0
// otherwise), and the UTF-8 masks of blockMask (only in a block with a
// byte 0x80 or above: 0 otherwise).
TEXT ·blockMasksAVX2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ m+8(FP), DI
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	EQ2(quote<>(SB), R8)
	MOVQ R8, 0(DI)
	EQ2(bslash<>(SB), R8)
	MOVQ R8, 8(DI)
	CTL2(R10)
	MOVQ R10, 16(DI)
	MOVEMASK2(Y0, Y1, R9)
	MOVQ R9, 24(DI)
	MOVQ $0, 32(DI)
	TESTQ R8, R8
	JZ utf8
	NOTSIMPLE2(R10)
	MOVQ R10, 32(DI)

utf8:
	MOVQ $0, 40(DI)
	MOVQ $0, 48(DI)
	MOVQ $0, 56(DI)
	TESTQ R9, R9
	JZ done
	UTF8MASKS(R10, R11, R12)
	MOVQ R10, 40(DI)
	MOVQ R11, 48(DI)
	MOVQ R12, 56(DI)

done:
	VZEROUPPER
	RET

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
	MOVQ $0x5555555555555555, R14

loop:
	LEAQ 64(DX), AX
	CMPQ AX, CX
	JGT ret
	XORQ R12, R12
	VMOVDQU (SI)(DX*1), Y0
	VMOVDQU 32(SI)(DX*1), Y1
	EQ2(quote<>(SB), R8)
	EQ2(bslash<>(SB), R9)
	CTL2(R10)
	MOVEMASK2(Y0, Y1, R11)
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
	NOTSIMPLE2(BX)
	ANDQ R12, BX
	JNZ ret
	MOVQ $1, R12 // the block has an escape

utf8:
	TESTQ R11, R11
	JZ next
	UTF8MASKS(R8, R9, R10)
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
