/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ChaCha20 (RFC 8439 §2.3-2.4) for MIPS32 release 2, big- and little-endian.
 *
 * void chacha20_mips_xor(uint8_t *dst, const uint8_t *src, size_t len,
 *                        uint32_t state[16]);
 *
 * dst = src XOR keystream for any len, any alignment of dst and src, dst may
 * equal src; state[12] advances by the blocks used, a partial last block
 * counting as one (the contract of chacha20_generic_xor, chacha20_impl.h).
 *
 * Design (see doc/crypto.md, "MIPS32r2"):
 * - The 16 state words live in 16 registers for the whole block; rotr
 *   (release 2) makes a quarter round 12 single-cycle ALU instructions, so the
 *   rounds have no stalls on an in-order 24K/34K/1004K pipeline.
 * - Words 1..3, 5..7, 9..11 and 13..15 do not depend on the block counter
 *   (word 12), so the first column round's quarter rounds on columns 1, 2 and
 *   3, the "a += b" of column 0 and the first three steps of the diagonal
 *   quarter round (2,7,8,13) are the same for every block of a call.  They
 *   are computed once per call into a stack area (PRE) and each block starts
 *   from there: 41 of the 960 round instructions are saved per block.
 * - The feed-forward ("add the input state") takes five input words from
 *   registers (words 0, 1, 4, 8 and the counter) and the rest from state[].
 * - The rounds are one local subroutine (entered with bal) shared by the
 *   aligned loop (lw/sw), the unaligned loop (lwl/lwr, swl/swr) and the
 *   partial last block, so the 3.7 KB of unrolled rounds exist once.
 * - Big-endian: keystream words are little-endian by definition, so each is
 *   byte-swapped (wsbh + rotr 16) before the XOR with the data word.
 * - The partial block's keystream and PRE are key-derived: both are
 *   overwritten with zeros before returning.
 */

#if __mips_isa_rev < 2
#error "chacha20.S needs MIPS32 release 2 (rotr, wsbh)"
#endif

/* arguments, kept for the whole call (o32) */
#define DST	$4	/* a0: next output byte */
#define SRC	$5	/* a1: next input byte */
#define END	$6	/* a2: len, then SRC value after the last full block */
#define STATE	$7	/* a3: uint32_t state[16] */
/* the working state x0..x15 */
#define X0	$8
#define X1	$9
#define X2	$10
#define X3	$11
#define X4	$12
#define X5	$13
#define X6	$14
#define X7	$15
#define X8	$16
#define X9	$17
#define X10	$18
#define X11	$19
#define X12	$20
#define X13	$21
#define X14	$22
#define X15	$23
/* input words kept in registers for the block start and the feed-forward */
#define CTR	$24	/* state[12], the block counter */
#define T	$25	/* scratch */
#define K4	$2	/* state[4] */
#define K8	$3	/* state[8] */
#define K0	$1	/* state[0] */
#define K1	$30	/* state[1] */
#define RA	$31	/* return address of the rounds subroutine */
#define SP	$29
#define ZERO	$0

/* stack frame */
#define BUF	0		/* 64 bytes: keystream of a partial block */
#define PRE(i)	(64 + 4 * (i))	/* per-call precomputed start of the rounds */
#define SAVE	128		/* s0-s7, fp, ra */
#define TAIL	168		/* len % 64 */
#define FRAME	176

#ifdef __MIPSEB__
/* little-endian keystream word -> register order of the data words */
#define KS_SWAP(x)	wsbh x, x; rotr x, x, 16
#define LWU(r, off, b)	lwl r, (off)(b); lwr r, (off) + 3(b)
#define SWU(r, off, b)	swl r, (off)(b); swr r, (off) + 3(b)
#else
#define KS_SWAP(x)
#define LWU(r, off, b)	lwr r, (off)(b); lwl r, (off) + 3(b)
#define SWU(r, off, b)	swr r, (off)(b); swl r, (off) + 3(b)
#endif
#define LWA(r, off, b)	lw r, (off)(b)
#define SWA(r, off, b)	sw r, (off)(b)

/* RFC 8439 §2.1: rotations left by 16, 12, 8, 7 are rotations right by 16, 20, 24, 25 */
#define QR(a, b, c, d)						\
	addu a, a, b;	xor d, d, a;	rotr d, d, 16;		\
	addu c, c, d;	xor b, b, c;	rotr b, b, 20;		\
	addu a, a, b;	xor d, d, a;	rotr d, d, 24;		\
	addu c, c, d;	xor b, b, c;	rotr b, b, 25

#define DOUBLEROUND						\
	QR(X0, X4, X8, X12);	QR(X1, X5, X9, X13);		\
	QR(X2, X6, X10, X14);	QR(X3, X7, X11, X15);		\
	QR(X0, X5, X10, X15);	QR(X1, X6, X11, X12);		\
	QR(X2, X7, X8, X13);	QR(X3, X4, X9, X14)

/*
 * Feed-forward and output of word i whose input word is in register k, with
 * u a free scratch register: 4 instructions (+2 big-endian), and the data
 * word's load is two issue slots ahead of its use.
 */
#define OUT_REG(LD, ST, x, i, k, u)				\
	LD(u, 4 * (i), SRC);					\
	addu x, x, k;						\
	KS_SWAP(x);						\
	xor x, x, u;						\
	ST(x, 4 * (i), DST)

/* the same with the input word loaded from state[] into T */
#define OUT_MEM(LD, ST, x, i, u)				\
	lw T, 4 * (i)(STATE);					\
	LD(u, 4 * (i), SRC);					\
	addu x, x, T;						\
	KS_SWAP(x);						\
	xor x, x, u;						\
	ST(x, 4 * (i), DST)

/*
 * One full block's output.  Each word's scratch register is the previous
 * word's x, which is dead once stored; the counter word goes first because
 * its scratch is T, before T holds a state word.
 */
#define OUT_BLOCK(LD, ST)					\
	OUT_REG(LD, ST, X12, 12, CTR, T);			\
	OUT_REG(LD, ST, X4, 4, K4, X12);			\
	OUT_REG(LD, ST, X8, 8, K8, X4);				\
	OUT_REG(LD, ST, X0, 0, K0, X8);				\
	OUT_REG(LD, ST, X1, 1, K1, X0);				\
	OUT_MEM(LD, ST, X2, 2, X1);				\
	OUT_MEM(LD, ST, X3, 3, X2);				\
	OUT_MEM(LD, ST, X5, 5, X3);				\
	OUT_MEM(LD, ST, X6, 6, X5);				\
	OUT_MEM(LD, ST, X7, 7, X6);				\
	OUT_MEM(LD, ST, X9, 9, X7);				\
	OUT_MEM(LD, ST, X10, 10, X9);				\
	OUT_MEM(LD, ST, X11, 11, X10);				\
	OUT_MEM(LD, ST, X13, 13, X11);				\
	OUT_MEM(LD, ST, X14, 14, X13);				\
	OUT_MEM(LD, ST, X15, 15, X14)

/* keystream word i (little-endian bytes) into BUF, for the partial block */
#define KS_REG(x, i, k)	addu x, x, k; KS_SWAP(x); sw x, BUF + 4 * (i)(SP)
#define KS_MEM(x, i)	lw T, 4 * (i)(STATE); addu x, x, T; KS_SWAP(x); sw x, BUF + 4 * (i)(SP)

	.text
	/* MIPS32r2 code, also where the build compiles C in MIPS16e (-mips16) */
	.set	nomips16
	.set	noreorder
	.set	noat
	.set	nomacro
	.align	4
	.globl	chacha20_mips_xor
	.hidden	chacha20_mips_xor	/* as -fvisibility=hidden makes C symbols: no dynamic symbol */
	.type	chacha20_mips_xor, @function
	.ent	chacha20_mips_xor
chacha20_mips_xor:
	.frame	SP, FRAME, RA
	.mask	0xc0ff0000, SAVE + 36 - FRAME
	beqz	END, .Lreturn_empty
	addiu	SP, SP, -FRAME		/* (delay slot: undone on that path) */
	sw	$16, SAVE + 0(SP)
	sw	$17, SAVE + 4(SP)
	sw	$18, SAVE + 8(SP)
	sw	$19, SAVE + 12(SP)
	sw	$20, SAVE + 16(SP)
	sw	$21, SAVE + 20(SP)
	sw	$22, SAVE + 24(SP)
	sw	$23, SAVE + 28(SP)
	sw	$30, SAVE + 32(SP)
	sw	$31, SAVE + 36(SP)
	andi	T, END, 63
	sw	T, TAIL(SP)
	ins	END, ZERO, 0, 6		/* len rounded down to whole blocks */
	addu	END, SRC, END

	/*
	 * The per-call precomputation (see the header): the state into
	 * X0..X15, the counter-independent first steps, PRE.
	 */
	lw	X0, 0(STATE)
	lw	X1, 4(STATE)
	lw	X2, 8(STATE)
	lw	X3, 12(STATE)
	lw	X5, 20(STATE)
	lw	X6, 24(STATE)
	lw	X7, 28(STATE)
	lw	X9, 36(STATE)
	lw	X10, 40(STATE)
	lw	X11, 44(STATE)
	lw	X13, 52(STATE)
	lw	X14, 56(STATE)
	lw	X15, 60(STATE)
	lw	K4, 16(STATE)
	lw	K8, 32(STATE)
	lw	CTR, 48(STATE)
	move	K0, X0
	move	K1, X1
	QR(X1, X5, X9, X13)
	QR(X2, X6, X10, X14)
	QR(X3, X7, X11, X15)
	addu	X0, X0, K4		/* column (0,4,8,12): a += b */
	addu	X1, X1, X6		/* diagonal (1,6,11,12): a += b */
	addu	X2, X2, X7		/* diagonal (2,7,8,13): a += b, */
	xor	X13, X13, X2		/*   d ^= a, */
	rotr	X13, X13, 16		/*   d <<<= 16 */
	sw	X0, PRE(0)(SP)
	sw	X1, PRE(1)(SP)
	sw	X2, PRE(2)(SP)
	sw	X3, PRE(3)(SP)
	sw	X5, PRE(5)(SP)
	sw	X6, PRE(6)(SP)
	sw	X7, PRE(7)(SP)
	sw	X9, PRE(9)(SP)
	sw	X10, PRE(10)(SP)
	sw	X11, PRE(11)(SP)
	sw	X13, PRE(13)(SP)
	sw	X14, PRE(14)(SP)
	sw	X15, PRE(15)(SP)

	beq	SRC, END, .Ltail	/* no whole block */
	or	T, SRC, DST
	andi	T, T, 3
	bnez	T, .Lunaligned
	nop

	/* whole blocks, dst and src word-aligned */
.Laligned:
	bal	.Lrounds
	lw	X0, PRE(0)(SP)
	OUT_BLOCK(LWA, SWA)
	addiu	SRC, SRC, 64
	addiu	CTR, CTR, 1
	bne	SRC, END, .Laligned
	addiu	DST, DST, 64
	b	.Ltail
	nop

	/* whole blocks, either pointer unaligned */
.Lunaligned:
	bal	.Lrounds
	lw	X0, PRE(0)(SP)
	OUT_BLOCK(LWU, SWU)
	addiu	SRC, SRC, 64
	addiu	CTR, CTR, 1
	bne	SRC, END, .Lunaligned
	addiu	DST, DST, 64

	/* the last len % 64 bytes: a keystream block in BUF, then bytes */
.Ltail:
	lw	X0, TAIL(SP)
	beqz	X0, .Ldone
	nop
	bal	.Lrounds
	lw	X0, PRE(0)(SP)
	KS_REG(X12, 12, CTR)
	KS_REG(X4, 4, K4)
	KS_REG(X8, 8, K8)
	KS_REG(X0, 0, K0)
	KS_REG(X1, 1, K1)
	KS_MEM(X2, 2)
	KS_MEM(X3, 3)
	KS_MEM(X5, 5)
	KS_MEM(X6, 6)
	KS_MEM(X7, 7)
	KS_MEM(X9, 9)
	KS_MEM(X10, 10)
	KS_MEM(X11, 11)
	KS_MEM(X13, 13)
	KS_MEM(X14, 14)
	KS_MEM(X15, 15)
	addiu	CTR, CTR, 1
	lw	X0, TAIL(SP)
	addiu	X2, SP, BUF
	addu	X1, SRC, X0		/* end of the input */
1:	lbu	X3, 0(SRC)
	lbu	X4, 0(X2)
	addiu	SRC, SRC, 1
	addiu	X2, X2, 1
	xor	X3, X3, X4
	sb	X3, 0(DST)
	bne	SRC, X1, 1b
	addiu	DST, DST, 1

.Ldone:
	sw	CTR, 48(STATE)
	/* no key-derived word stays behind in the frame */
	.irp	off, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68, 72, 76, 80, 84, 88, 92, 96, 100, 104, 108, 112, 116, 120, 124
	sw	ZERO, \off(SP)
	.endr
	lw	$16, SAVE + 0(SP)
	lw	$17, SAVE + 4(SP)
	lw	$18, SAVE + 8(SP)
	lw	$19, SAVE + 12(SP)
	lw	$20, SAVE + 16(SP)
	lw	$21, SAVE + 20(SP)
	lw	$22, SAVE + 24(SP)
	lw	$23, SAVE + 28(SP)
	lw	$30, SAVE + 32(SP)
	lw	$31, SAVE + 36(SP)
	jr	RA
	addiu	SP, SP, FRAME

.Lreturn_empty:
	jr	RA
	addiu	SP, SP, FRAME

	/*
	 * The rounds of one block: in X0 = PRE(0) (loaded in the caller's
	 * delay slot), CTR, K4, K8 and PRE; out X0..X15 before the
	 * feed-forward.  The rest of PRE is loaded between the remaining
	 * steps of column quarter round (0,4,8,12), each load two slots ahead
	 * of its first use.
	 */
.Lrounds:
	lw	X5, PRE(5)(SP)
	xor	X12, CTR, X0
	lw	X10, PRE(10)(SP)
	rotr	X12, X12, 16
	lw	X15, PRE(15)(SP)
	addu	X8, K8, X12
	lw	X1, PRE(1)(SP)
	xor	X4, K4, X8
	lw	X6, PRE(6)(SP)
	rotr	X4, X4, 20
	lw	X11, PRE(11)(SP)
	addu	X0, X0, X4
	lw	X2, PRE(2)(SP)
	xor	X12, X12, X0
	lw	X7, PRE(7)(SP)
	rotr	X12, X12, 24
	lw	X13, PRE(13)(SP)
	addu	X8, X8, X12
	lw	X3, PRE(3)(SP)
	xor	X4, X4, X8
	lw	X9, PRE(9)(SP)
	rotr	X4, X4, 25
	lw	X14, PRE(14)(SP)
	/* the rest of the first double round: the diagonal round */
	QR(X0, X5, X10, X15)
	/* (1,6,11,12) without its "a += b", done in PRE */
	xor	X12, X12, X1;	rotr	X12, X12, 16
	addu	X11, X11, X12;	xor	X6, X6, X11;	rotr	X6, X6, 20
	addu	X1, X1, X6;	xor	X12, X12, X1;	rotr	X12, X12, 24
	addu	X11, X11, X12;	xor	X6, X6, X11;	rotr	X6, X6, 25
	/* (2,7,8,13) from its fourth step */
	addu	X8, X8, X13;	xor	X7, X7, X8;	rotr	X7, X7, 20
	addu	X2, X2, X7;	xor	X13, X13, X2;	rotr	X13, X13, 24
	addu	X8, X8, X13;	xor	X7, X7, X8;	rotr	X7, X7, 25
	QR(X3, X4, X9, X14)
	/* double rounds 2..10; the last instruction goes in jr's delay slot */
	.rept	8
	DOUBLEROUND
	.endr
	QR(X0, X4, X8, X12);	QR(X1, X5, X9, X13)
	QR(X2, X6, X10, X14);	QR(X3, X7, X11, X15)
	QR(X0, X5, X10, X15);	QR(X1, X6, X11, X12)
	QR(X2, X7, X8, X13)
	addu	X3, X3, X4;	xor	X14, X14, X3;	rotr	X14, X14, 16
	addu	X9, X9, X14;	xor	X4, X4, X9;	rotr	X4, X4, 20
	addu	X3, X3, X4;	xor	X14, X14, X3;	rotr	X14, X14, 24
	addu	X9, X9, X14;	xor	X4, X4, X9
	jr	RA
	rotr	X4, X4, 25

	.end	chacha20_mips_xor
	.size	chacha20_mips_xor, . - chacha20_mips_xor
