/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Poly1305 block loop (RFC 8439 §2.5) for MIPS32 release 2, big- and
 * little-endian.
 *
 * void poly1305_mips_blocks(void *core, const uint8_t *in, size_t len,
 *                           uint32_t padbit);
 *
 * core is struct poly1305_mips_state (poly1305_glue.c), all 32-bit words:
 *   h[5]  (offset 0)   accumulator h0 + h1 2^32 + h2 2^64 + h3 2^96 + h4 2^128,
 *                      not fully reduced: h4 < 2^31
 *   r[4]  (offset 20)  clamped r: every r[i] < 2^28, r1..r3 multiples of 4
 *   s[3]  (offset 36)  s[i] = r[i+1] + (r[i+1] >> 2) = 5/4 r[i+1] < 2^28.33
 * len is a multiple of 16 (a remainder is ignored); in has any alignment.
 *
 * The arithmetic, base 2^32 modulo p = 2^130 - 5.  With a = h + m (a4 < 2^31)
 * and a4 = 4 k + l (l = a4 & 3), the product a r mod p is d0 + d1 2^32 +
 * d2 2^64 + d3 2^96 + d4 2^128 where, since 2^130 = 5 (mod p) and r_j 2^128
 * = (r_j / 4) 2^130 = s_j (mod p) for j >= 1:
 *   d0 = a0 r0 + a1 s3 + a2 s2 + a3 s1 + 5k r0
 *   d1 = a0 r1 + a1 r0 + a2 s3 + a3 s2 + a4 s1
 *   d2 = a0 r2 + a1 r1 + a2 r0 + a3 s3 + a4 s2
 *   d3 = a0 r3 + a1 r2 + a2 r1 + a3 r0 + a4 s3
 *   d4 = l r0
 * Bounds: a_i < 2^32, so each d_i < 4 2^60.33 + 2^31 2^28.33 < 2^62.6 and,
 * with the carry, a message word and (d3) the top terms below added, still
 * < 2^64: each d_i is one multu + maddu chain in HI:LO, never a 64-bit add
 * in GPRs.  hi(d3) < 2^30.6, so the next a4 < 2^31.
 *
 * Fused carries and message addition: the carry chain of the product and the
 * addition of the NEXT message block are one: h_i = lo(d_i + c_{i-1} + m_i),
 * c_i = hi(...), with the carry and the message word entering the
 * accumulator as "maddu x, ONE".  So the next block needs no add-with-carry
 * chain in GPRs.  The top word is fused the same way: the next
 * a4 = hi(d3) + l r0 + padbit is hi(d3 + (l r0 + padbit) 2^32), and both
 * terms enter d3 as products of two 32-bit registers: l r0 2^32 =
 * (l << 30)(r0 << 2), padbit 2^32 = (padbit << 16)^2 (padbit is 0 or 1).
 * The mfhi that ends d3 is then the next a4 itself.  A block costs 29
 * multiply-accumulates, 8 mflo/mfhi, 4 loads and 6 other instructions: 47 on
 * little-endian aligned input (+4 unaligned, +8 big-endian byte swaps).
 *
 * Scheduling (24K/34K/1004K: mflo/mfhi -> use 5 cycles, load -> use 2,
 * maddu back to back): the one loop-carried chain is hi(d3) -> a4 -> 5k; it
 * is hidden behind the first products of d0 (and the loop branch), with
 * "maddu 5k, r0" last in d0, and each carry c_i is consumed last in d_{i+1}.
 * The loop is unrolled twice so that the new h (set Y) and the old a (set X)
 * live in different registers without moves.  Nothing is spilled: no secret
 * touches the stack (the frame holds only the caller's s0-s7 and fp).
 *
 * Message words: lw on word-aligned input, lwr/lwl otherwise (chosen once per
 * call); on big-endian a byte swap (wsbh, rotr 16) makes them little-endian.
 */

#if __mips_isa_rev < 2
#error "poly1305.S needs MIPS32 release 2 (wsbh, rotr, ins)"
#endif

#define CORE	$4	/* a0 */
#define IN	$5	/* a1 */
#define END	$6	/* a2: len, then in + len rounded down to 16 */
#define PAD	$7	/* a3: padbit, 2^128 for each full block */
#define R0	$8
#define R1	$9
#define R2	$10
#define R3	$11
#define S1	$12
#define S2	$13
#define S3	$14
#define ONE	$15	/* "maddu x, ONE" adds x to HI:LO */
#define A0	$16	/* register set A: a0..a3 or the new h0..h3 */
#define A1	$17
#define A2	$18
#define A3	$19
#define B0	$20	/* register set B, the other half of the unrolled loop */
#define B1	$21
#define B2	$22
#define B3	$23
#define H4	$24	/* a4 */
#define L	$25	/* (a4 & 3) << 30, and scratch */
#define K5	$2	/* 5 (a4 >> 2), and scratch */
#define R0X4	$3	/* r0 << 2 */
#define C	$1	/* carry c_i = hi(d_i), and scratch */
#define M	$30	/* message word */
#define SP	$29
#define ZERO	$0
#define FRAME	40

#ifdef __MIPSEB__
#define MSWAP(r)	wsbh r, r; rotr r, r, 16
#define LWU(r, off, b)	lwl r, (off)(b); lwr r, (off) + 3(b)
#else
#define MSWAP(r)
#define LWU(r, off, b)	lwr r, (off)(b); lwl r, (off) + 3(b)
#endif

	.text
	/* MIPS32r2 code, also where the build compiles C in MIPS16e (-mips16) */
	.set	nomips16
	.set	noreorder
	.set	noat
	.set	nomacro

/* message word at IN + off: aligned (ua = 0) or not */
.macro	LDM r, off, ua
	.if	\ua
	LWU(\r, \off, IN)
	.else
	lw	\r, \off(IN)
	.endif
.endm

/*
 * One block: x <- (x + previous message) r, fused with y = lo(...) + next
 * message.  Slot 0 ("multu x0, R0") sits in the delay slot of the branch
 * before.  On entry: x0..x3, and H4 = a4 from the mfhi two slots back; IN at
 * the next message block.  The loop branch is `br` to `target`.
 */
.macro	BLOCK x0, x1, x2, x3, y0, y1, y2, y3, ua, br, target
	LDM	M, 0, \ua
	maddu	\x1, S3
	srl	K5, H4, 2		/* k */
	maddu	\x2, S2
	sll	C, K5, 2		/* 4k */
	maddu	\x3, S1
	addu	K5, K5, C		/* 5k */
	MSWAP(M)
	maddu	M, ONE
	sll	L, H4, 30		/* l << 30 */
	maddu	K5, R0
	LDM	M, 4, \ua
	mflo	\y0			/* d0 done */
	mfhi	C
	multu	\x0, R1
	maddu	\x1, R0
	MSWAP(M)
	maddu	\x2, S3
	maddu	\x3, S2
	maddu	H4, S1
	maddu	M, ONE
	maddu	C, ONE
	LDM	M, 8, \ua
	mflo	\y1			/* d1 done */
	mfhi	C
	multu	\x0, R2
	maddu	\x1, R1
	MSWAP(M)
	maddu	\x2, R0
	maddu	\x3, S3
	maddu	H4, S2
	maddu	M, ONE
	maddu	C, ONE
	LDM	M, 12, \ua
	mflo	\y2			/* d2 done */
	mfhi	C
	multu	\x0, R3
	maddu	\x1, R2
	MSWAP(M)
	maddu	\x2, R1
	maddu	\x3, R0
	maddu	H4, S3
	maddu	M, ONE
	maddu	C, ONE
	maddu	L, R0X4			/* + l r0 2^32 */
	maddu	PAD, PAD		/* + padbit 2^32 */
	addiu	IN, IN, 16
	mflo	\y3			/* d3 done */
	mfhi	H4			/* the next a4 */
	\br	IN, END, \target
	multu	\y0, R0			/* slot 0 of the next block */
.endm

/*
 * The last block: x <- x r with no message to add; then y0..y3 and a4 go
 * back to core.  Entered after slot 0, like BLOCK.
 */
.macro	LAST x0, x1, x2, x3, y0, y1, y2, y3
	maddu	\x1, S3
	maddu	\x2, S2
	srl	K5, H4, 2
	maddu	\x3, S1
	sll	C, K5, 2
	sll	L, H4, 30
	addu	K5, K5, C
	maddu	K5, R0
	mflo	\y0
	mfhi	C
	multu	\x0, R1
	maddu	\x1, R0
	maddu	\x2, S3
	maddu	\x3, S2
	maddu	H4, S1
	maddu	C, ONE
	mflo	\y1
	mfhi	C
	multu	\x0, R2
	maddu	\x1, R1
	maddu	\x2, R0
	maddu	\x3, S3
	maddu	H4, S2
	maddu	C, ONE
	mflo	\y2
	mfhi	C
	multu	\x0, R3
	maddu	\x1, R2
	maddu	\x2, R1
	maddu	\x3, R0
	maddu	H4, S3
	maddu	C, ONE
	maddu	L, R0X4
	mflo	\y3
	mfhi	H4
	sw	\y0, 0(CORE)
	sw	\y1, 4(CORE)
	sw	\y2, 8(CORE)
	sw	\y3, 12(CORE)
	b	.Lreturn
	sw	H4, 16(CORE)
.endm

/*
 * One loop over the blocks with the given message load: the first block is
 * added to h with an add-with-carry chain (once per call), then BLOCK twice
 * per iteration (A -> B, B -> A), then LAST.
 */
.macro	LOOP ua
	LDM	B0, 0, \ua
	LDM	B1, 4, \ua
	LDM	B2, 8, \ua
	LDM	B3, 12, \ua
	addiu	IN, IN, 16
	MSWAP(B0)
	MSWAP(B1)
	MSWAP(B2)
	MSWAP(B3)
	addu	A0, A0, B0		/* a = h + m, carries in C */
	sltu	C, A0, B0
	addu	A1, A1, C
	sltu	L, A1, C
	addu	A1, A1, B1
	sltu	K5, A1, B1
	or	C, L, K5
	addu	A2, A2, C
	sltu	L, A2, C
	addu	A2, A2, B2
	sltu	K5, A2, B2
	or	C, L, K5
	addu	A3, A3, C
	sltu	L, A3, C
	addu	A3, A3, B3
	sltu	K5, A3, B3
	or	C, L, K5
	addu	H4, H4, C
	addu	H4, H4, PAD		/* a4 */
	sll	PAD, PAD, 16		/* maddu PAD, PAD adds padbit 2^32 */
	beq	IN, END, 3f
	multu	A0, R0
1:	BLOCK	A0, A1, A2, A3, B0, B1, B2, B3, \ua, beq, 2f
	BLOCK	B0, B1, B2, B3, A0, A1, A2, A3, \ua, bne, 1b
3:	LAST	A0, A1, A2, A3, B0, B1, B2, B3
2:	LAST	B0, B1, B2, B3, A0, A1, A2, A3
.endm

	.align	4
	.globl	poly1305_mips_blocks
	.hidden	poly1305_mips_blocks	/* as -fvisibility=hidden makes C symbols: no dynamic symbol */
	.type	poly1305_mips_blocks, @function
	.ent	poly1305_mips_blocks
poly1305_mips_blocks:
	.frame	SP, FRAME, $31
	.mask	0x40ff0000, 32 - FRAME
	ins	END, ZERO, 0, 4		/* whole blocks only */
	beqz	END, .Lempty
	addu	END, IN, END
	addiu	SP, SP, -FRAME
	sw	$16, 0(SP)
	sw	$17, 4(SP)
	sw	$18, 8(SP)
	sw	$19, 12(SP)
	sw	$20, 16(SP)
	sw	$21, 20(SP)
	sw	$22, 24(SP)
	sw	$23, 28(SP)
	sw	$30, 32(SP)
	lw	A0, 0(CORE)
	lw	A1, 4(CORE)
	lw	A2, 8(CORE)
	lw	A3, 12(CORE)
	lw	H4, 16(CORE)
	lw	R0, 20(CORE)
	lw	R1, 24(CORE)
	lw	R2, 28(CORE)
	lw	R3, 32(CORE)
	lw	S1, 36(CORE)
	lw	S2, 40(CORE)
	lw	S3, 44(CORE)
	sll	R0X4, R0, 2
	andi	C, IN, 3
	bnez	C, .Lunaligned
	li	ONE, 1
	LOOP	0
.Lunaligned:
	LOOP	1
.Lreturn:
	lw	$16, 0(SP)
	lw	$17, 4(SP)
	lw	$18, 8(SP)
	lw	$19, 12(SP)
	lw	$20, 16(SP)
	lw	$21, 20(SP)
	lw	$22, 24(SP)
	lw	$23, 28(SP)
	lw	$30, 32(SP)
	jr	$31
	addiu	SP, SP, FRAME
.Lempty:
	jr	$31
	nop
	.end	poly1305_mips_blocks
	.size	poly1305_mips_blocks, . - poly1305_mips_blocks
