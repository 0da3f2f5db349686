/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The word-aligned body of the Internet checksum (RFC 1071) for MIPS32
 * release 2, big- and little-endian; daemon/datapath/gso.c calls it for the TCP
 * checksums that the TUN device leaves to wgd (gso_csum_add, and
 * gso_csum_copy on each TSO segment's payload).
 *
 * uint32_t gso_csum_mips_add(const uint8_t *p, size_t n);
 * uint32_t gso_csum_mips_copy(uint8_t *dst, const uint8_t *src, size_t n);
 *
 * p, src and dst are 4-byte aligned, n is a multiple of 4, and dst does not
 * overlap src.  Both return the ones'-complement sum of the n / 4
 * native-order 32-bit words at p (src), 32 bits wide; the copy also stores
 * the words to dst.  The words are summed exactly in HI:LO (at most 2^30
 * words below 2^32 each: below 2^62), then hi + lo with the carry added
 * back: a value congruent to the exact sum modulo 2^32 - 1, so modulo
 * 0xffff, and zero only if every word is.  gso_sum_fold_be() folds that to
 * the sum of the native-order 16-bit words, whatever the byte order (RFC
 * 1071 §2(B)).
 *
 * Why assembly: MIPS32 has no add-with-carry, so C that sums 32-bit words
 * pays a compare and an add for every carry (daemon/datapath/gso.c: 1.2 instructions
 * per byte summed, 1.5 copied).  The multiply unit's 64-bit accumulator
 * HI:LO does the carrying instead: "maddu w, ONE" (ONE = 1) adds w to HI:LO
 * in one instruction, as in poly1305.S.  A word then costs lw + maddu (+ sw
 * for the copy).  The loop's pointer updates and branch are shared by eight
 * words a step in the sum (IP and TCP headers, 20 to 60 bytes, are most of
 * its calls) and by sixteen in the copy (TSO segment payloads, about 1400
 * bytes); the words after the last whole step go one at a time.
 *
 * Scheduling (24K/34K/1004K: load -> use 2 cycles, maddu back to back): no
 * word is used in the slot right after its load, so no load stalls; HI:LO
 * is read only at the end.  Each step reuses W0..W7 in turn, a register
 * being loaded again only after its last use.  HI, LO and every register
 * used here are caller-saved in o32: no frame.
 */

#if __mips_isa_rev < 2
#error "csum.S needs MIPS32 release 2 (ins)"
#endif

#define ONE	$24	/* t8: "maddu w, ONE" adds w to HI:LO */
#define STOP	$3	/* v1: where the unrolled steps stop */
#define END	$7	/* a3: the end of the words */
#define W0	$8
#define W1	$9
#define W2	$10
#define W3	$11
#define W4	$12
#define W5	$13
#define W6	$14
#define W7	$15
#define ZERO	$0
#define SP	$29
#define RA	$31

#define RET	$2	/* v0 */

/*
 * The symbols are hidden, as -fvisibility=hidden makes the C ones: no
 * dynamic symbol for them in the executable (PIE).
 */
	.text
	/* MIPS32r2 code, also where the build compiles C in MIPS16e (-mips16) */
	.set	nomips16
	.set	noreorder
	.set	noat
	.set	nomacro

/*
 * The entry both functions share: HI:LO cleared, END = ptr + len, STOP
 * where the steps of 2^bits bytes end (len rounded down), ONE set in the
 * delay slot of the branch past the steps ("2f", after the expansion).
 */
.macro CSUM_BEGIN name, ptr, len, bits
	.align	4
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.ent	\name
\name:
	.frame	SP, 0, RA
	.mask	0, 0
	multu	ZERO, ZERO		/* HI:LO = 0 */
	addu	END, \ptr, \len
	ins	\len, ZERO, 0, \bits	/* len rounded down to a step */
	addu	STOP, \ptr, \len
	beq	\ptr, STOP, 2f
	li	ONE, 1
.endm

/* The exit: hi + lo with the end-around carry, returned. */
.macro CSUM_END name
	mflo	W0
	mfhi	W1
	addu	RET, W0, W1		/* hi + lo, end-around carry */
	sltu	W1, RET, W1
	jr	RA
	addu	RET, RET, W1
	.end	\name
	.size	\name, . - \name
.endm

/*
 * uint32_t gso_csum_mips_add(const uint8_t *p, size_t n)
 */
#define P	$4	/* a0 */
#define N	$5	/* a1 */

	CSUM_BEGIN gso_csum_mips_add, P, N, 5
1:	lw	W0, 0(P)
	lw	W1, 4(P)
	lw	W2, 8(P)
	maddu	W0, ONE
	lw	W3, 12(P)
	maddu	W1, ONE
	lw	W4, 16(P)
	maddu	W2, ONE
	lw	W5, 20(P)
	maddu	W3, ONE
	lw	W6, 24(P)
	maddu	W4, ONE
	lw	W7, 28(P)
	maddu	W5, ONE
	addiu	P, P, 32
	maddu	W6, ONE
	bne	P, STOP, 1b
	maddu	W7, ONE
2:	beq	P, END, 4f
	nop
3:	lw	W0, 0(P)
	addiu	P, P, 4
	bne	P, END, 3b
	maddu	W0, ONE
4:	CSUM_END gso_csum_mips_add

#undef P
#undef N

/*
 * uint32_t gso_csum_mips_copy(uint8_t *dst, const uint8_t *src, size_t n)
 *
 * Each word is stored three slots after its load and summed four after it.
 */
#define D	$4	/* a0 */
#define S	$5	/* a1 */
#define N	$6	/* a2 */

	CSUM_BEGIN gso_csum_mips_copy, S, N, 6
1:	lw	W0, 0(S)
	lw	W1, 4(S)
	sw	W0, 0(D)
	maddu	W0, ONE
	lw	W2, 8(S)
	sw	W1, 4(D)
	maddu	W1, ONE
	lw	W3, 12(S)
	sw	W2, 8(D)
	maddu	W2, ONE
	lw	W4, 16(S)
	sw	W3, 12(D)
	maddu	W3, ONE
	lw	W5, 20(S)
	sw	W4, 16(D)
	maddu	W4, ONE
	lw	W6, 24(S)
	sw	W5, 20(D)
	maddu	W5, ONE
	lw	W7, 28(S)
	sw	W6, 24(D)
	maddu	W6, ONE
	lw	W0, 32(S)
	sw	W7, 28(D)
	maddu	W7, ONE
	lw	W1, 36(S)
	sw	W0, 32(D)
	maddu	W0, ONE
	lw	W2, 40(S)
	sw	W1, 36(D)
	maddu	W1, ONE
	lw	W3, 44(S)
	sw	W2, 40(D)
	maddu	W2, ONE
	lw	W4, 48(S)
	sw	W3, 44(D)
	maddu	W3, ONE
	lw	W5, 52(S)
	sw	W4, 48(D)
	maddu	W4, ONE
	lw	W6, 56(S)
	sw	W5, 52(D)
	maddu	W5, ONE
	lw	W7, 60(S)
	sw	W6, 56(D)
	maddu	W6, ONE
	addiu	S, S, 64
	sw	W7, 60(D)
	maddu	W7, ONE
	bne	S, STOP, 1b
	addiu	D, D, 64
2:	beq	S, END, 4f
	nop
3:	lw	W0, 0(S)
	addiu	S, S, 4
	sw	W0, 0(D)
	addiu	D, D, 4
	bne	S, END, 3b
	maddu	W0, ONE
4:	CSUM_END gso_csum_mips_copy
