// SPDX-License-Identifier: GPL-2.0-only
/*
 * Known answers from the specifications, as tables:
 *   RFC 8439 (ChaCha20 and Poly1305 for IETF Protocols):
 *     §2.3.2 and A.1  the ChaCha20 block function
 *     §2.4.2 and A.2  ChaCha20 encryption
 *     §2.5.2 and A.3  Poly1305 (through poly1305() and through each block core)
 *     §2.6.2 and A.4  Poly1305 key generation
 *     §2.8.2 and A.5  AEAD_CHACHA20_POLY1305 encryption and decryption
 *   draft-irtf-cfrg-xchacha-03 §2.2.1  HChaCha20
 *   RFC 7693 Appendix B  BLAKE2s-256("abc")
 *   WireGuard whitepaper §5.4: the chaining key C0 and hash H0 every handshake starts from
 * The vectors are data copied from those documents (hex dumps joined into one
 * string per field).  Texts that the RFC gives as ASCII are written as C
 * strings and checked against the RFC's hex dumps by their ciphertexts.
 */
#include <stdio.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/chacha20.h"
#include "crypto/chacha20_impl.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/poly1305.h"
#include "crypto/selftest.h"
#include "tests/lib/testutil.h"

/* RFC 8439 §2.4.2 and §2.8.2 */
static const char sunscreen[] =
	"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
	"the future, sunscreen would be it.";

/* RFC 8439 A.2 #2, A.3 #2 and #3 (375 bytes) */
static const char ietf_submission[] =
	"Any submission to the IETF intended by the Contributor for publication as all or "
	"part of an IETF Internet-Draft or RFC and any statement made within the context "
	"of an IETF activity is considered an \"IETF Contribution\". Such statements "
	"include oral statements in IETF sessions, as well as written and electronic "
	"communications made at any time or place, which are addressed to";

/* RFC 8439 A.2 #3 and A.3 #4 */
static const char jabberwocky[] =
	"'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\n"
	"All mimsy were the borogoves,\nAnd the mome raths outgrabe.";

/* RFC 8439 A.5: the plaintext contains UTF-8 curly quotes */
static const char internet_drafts[] =
	"Internet-Drafts are draft documents valid for a maximum of six months and may be "
	"updated, replaced, or obsoleted by other documents at any time. It is "
	"inappropriate to use Internet-Drafts as reference material or to cite them other "
	"than as /\xe2\x80\x9cwork in progress./\xe2\x80\x9d";

#define KEY_0_TO_1F "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define KEY_ZERO "0000000000000000000000000000000000000000000000000000000000000000"
#define KEY_ONE "0000000000000000000000000000000000000000000000000000000000000001"
#define KEY_80_TO_9F "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
#define KEY_1C92 "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0"

struct block_vec {
	const char *name;
	const char *key;
	const char *nonce;
	uint32_t counter;
	const char *out;
};

static const struct block_vec block_vecs[] = {
	{ "RFC 8439 2.3.2", KEY_0_TO_1F, "000000090000004a00000000", 1,
	  "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
	  "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e" },
	{ "RFC 8439 A.1 #1", KEY_ZERO, "000000000000000000000000", 0,
	  "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
	  "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586" },
	{ "RFC 8439 A.1 #2", KEY_ZERO, "000000000000000000000000", 1,
	  "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
	  "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f" },
	{ "RFC 8439 A.1 #3", KEY_ONE, "000000000000000000000000", 1,
	  "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
	  "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0" },
	{ "RFC 8439 A.1 #4", "00ff000000000000000000000000000000000000000000000000000000000000",
	  "000000000000000000000000", 2,
	  "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
	  "13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096" },
	{ "RFC 8439 A.1 #5", KEY_ZERO, "000000000000000000000002", 0,
	  "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
	  "8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d" },
};

/* RFC 8439 §2.3.2: the state after setup, as the RFC prints it (word 12 is the counter). */
static const uint32_t rfc_2_3_2_setup[16] = {
	0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
	0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c,
	0x13121110, 0x17161514, 0x1b1a1918, 0x1f1e1d1c,
	0x00000001, 0x09000000, 0x4a000000, 0x00000000,
};

static void test_block_function(void)
{
	size_t i;

	for (i = 0; i < sizeof(block_vecs) / sizeof(block_vecs[0]); i++) {
		const struct block_vec *v = &block_vecs[i];
		struct chacha20_ctx ctx;
		uint8_t key[32], nonce[12], want[64], out[64];

		tu_hex(key, sizeof(key), v->key);
		tu_hex(nonce, sizeof(nonce), v->nonce);
		tu_hex(want, sizeof(want), v->out);
		chacha20_init(&ctx, key, nonce, v->counter);
		if (i == 0)
			tu_check(memcmp(ctx.state, rfc_2_3_2_setup, sizeof(rfc_2_3_2_setup)) == 0,
				 "%s: state after chacha20_init differs from the RFC's", v->name);
		chacha20_block(out, ctx.state);
		tu_check_mem(out, want, 64, "%s: chacha20_block", v->name);
		tu_check(ctx.state[12] == v->counter, "%s: chacha20_block changed the state",
			 v->name);
		/* The same block through the stream function, from zeros. */
		memset(out, 0, sizeof(out));
		chacha20_xor(&ctx, out, out, sizeof(out));
		tu_check_mem(out, want, 64, "%s: chacha20_xor of zeros", v->name);
		tu_check(ctx.state[12] == v->counter + 1, "%s: counter not advanced by one block",
			 v->name);
		chacha20_clear(&ctx);
	}
}

struct stream_vec {
	const char *name;
	const char *key;
	const char *nonce;
	uint32_t counter;
	const char *plain;	/* text, or NULL for plain_zeros zero bytes */
	size_t plain_zeros;
	const char *cipher;
};

static const struct stream_vec stream_vecs[] = {
	{ "RFC 8439 2.4.2", KEY_0_TO_1F, "000000000000004a00000000", 1, sunscreen, 0,
	  "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
	  "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
	  "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
	  "5af90bbf74a35be6b40b8eedf2785e42874d" },
	{ "RFC 8439 A.2 #1", KEY_ZERO, "000000000000000000000000", 0, NULL, 64,
	  "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
	  "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586" },
	{ "RFC 8439 A.2 #2", KEY_ONE, "000000000000000000000002", 1, ietf_submission, 0,
	  "a3fbf07df3fa2fde4f376ca23e82737041605d9f4f4f57bd8cff2c1d4b7955ec"
	  "2a97948bd3722915c8f3d337f7d370050e9e96d647b7c39f56e031ca5eb6250d"
	  "4042e02785ececfa4b4bb5e8ead0440e20b6e8db09d881a7c6132f420e527950"
	  "42bdfa7773d8a9051447b3291ce1411c680465552aa6c405b7764d5e87bea85a"
	  "d00f8449ed8f72d0d662ab052691ca66424bc86d2df80ea41f43abf937d3259d"
	  "c4b2d0dfb48a6c9139ddd7f76966e928e635553ba76c5c879d7b35d49eb2e62b"
	  "0871cdac638939e25e8a1e0ef9d5280fa8ca328b351c3c765989cbcf3daa8b6c"
	  "cc3aaf9f3979c92b3720fc88dc95ed84a1be059c6499b9fda236e7e818b04b0b"
	  "c39c1e876b193bfe5569753f88128cc08aaa9b63d1a16f80ef2554d7189c411f"
	  "5869ca52c5b83fa36ff216b9c1d30062bebcfd2dc5bce0911934fda79a86f6e6"
	  "98ced759c3ff9b6477338f3da4f9cd8514ea9982ccafb341b2384dd902f3d1ab"
	  "7ac61dd29c6f21ba5b862f3730e37cfdc4fd806c22f221" },
	{ "RFC 8439 A.2 #3", KEY_1C92, "000000000000000000000002", 42, jabberwocky, 0,
	  "62e6347f95ed87a45ffae7426f27a1df5fb69110044c0d73118effa95b01e5cf"
	  "166d3df2d721caf9b21e5fb14c616871fd84c54f9d65b283196c7fe4f60553eb"
	  "f39c6402c42234e32a356b3e764312a61a5532055716ead6962568f87d3f3f77"
	  "04c6a8d1bcd1bf4d50d6154b6da731b187b58dfd728afa36757a797ac188d1" },
};

static void test_stream(void)
{
	size_t i;

	for (i = 0; i < sizeof(stream_vecs) / sizeof(stream_vecs[0]); i++) {
		const struct stream_vec *v = &stream_vecs[i];
		uint8_t key[32], nonce[12], plain[512], want[512], out[512];
		size_t len = v->plain ? strlen(v->plain) : v->plain_zeros;
		size_t blocks = (len + 63) / 64;
		uint32_t state[16];
		struct chacha20_ctx ctx;

		tu_hex(key, sizeof(key), v->key);
		tu_hex(nonce, sizeof(nonce), v->nonce);
		tu_check(tu_hex(want, sizeof(want), v->cipher) == len, "%s: length", v->name);
		memset(plain, 0, sizeof(plain));
		if (v->plain)
			memcpy(plain, v->plain, len);

		chacha20_init(&ctx, key, nonce, v->counter);
		chacha20_xor(&ctx, out, plain, len);
		tu_check_mem(out, want, len, "%s: chacha20_xor encrypt", v->name);
		tu_check(ctx.state[12] == v->counter + blocks, "%s: counter after xor", v->name);

		chacha20_init(&ctx, key, nonce, v->counter);
		chacha20_xor(&ctx, out, out, len);
		tu_check_mem(out, plain, len, "%s: chacha20_xor decrypt in place", v->name);

		/* The generic core exported for comparison with accelerated ones. */
		chacha20_init(&ctx, key, nonce, v->counter);
		memcpy(state, ctx.state, sizeof(state));
		chacha20_generic_xor(out, plain, len, state);
		tu_check_mem(out, want, len, "%s: chacha20_generic_xor", v->name);
		tu_check(state[12] == v->counter + blocks, "%s: generic counter", v->name);
		chacha20_clear(&ctx);
	}
}

struct poly_vec {
	const char *name;
	const char *key;
	const char *msg_hex;	/* hex, or NULL to use msg_text */
	const char *msg_text;
	size_t msg_zeros;	/* with both NULL: that many zero bytes */
	const char *tag;
};

#define HEX16_ZERO "00000000000000000000000000000000"
#define HEX16_FF "ffffffffffffffffffffffffffffffff"

static const struct poly_vec poly_vecs[] = {
	{ "RFC 8439 2.5.2",
	  "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b", NULL,
	  "Cryptographic Forum Research Group", 0, "a8061dc1305136c6c22b8baf0c0127a9" },
	{ "RFC 8439 A.3 #1", KEY_ZERO, NULL, NULL, 64, HEX16_ZERO },
	{ "RFC 8439 A.3 #2", HEX16_ZERO "36e5f6b5c5e06070f0efca96227a863e", NULL,
	  ietf_submission, 0, "36e5f6b5c5e06070f0efca96227a863e" },
	{ "RFC 8439 A.3 #3", "36e5f6b5c5e06070f0efca96227a863e" HEX16_ZERO, NULL,
	  ietf_submission, 0, "f3477e7cd95417af89a6b8794c310cf0" },
	{ "RFC 8439 A.3 #4", KEY_1C92, NULL, jabberwocky, 0,
	  "4541669a7eaaee61e708dc7cbcc5eb62" },
	/* A.3 #5..#11: the RFC gives R and S; the key is R || S. */
	{ "RFC 8439 A.3 #5", "02000000000000000000000000000000" HEX16_ZERO, HEX16_FF, NULL, 0,
	  "03000000000000000000000000000000" },
	{ "RFC 8439 A.3 #6", "02000000000000000000000000000000" HEX16_FF,
	  "02000000000000000000000000000000", NULL, 0, "03000000000000000000000000000000" },
	{ "RFC 8439 A.3 #7", "01000000000000000000000000000000" HEX16_ZERO,
	  HEX16_FF "f0ffffffffffffffffffffffffffffff11000000000000000000000000000000", NULL, 0,
	  "05000000000000000000000000000000" },
	{ "RFC 8439 A.3 #8", "01000000000000000000000000000000" HEX16_ZERO,
	  HEX16_FF "fbfefefefefefefefefefefefefefefe01010101010101010101010101010101", NULL, 0,
	  HEX16_ZERO },
	{ "RFC 8439 A.3 #9", "02000000000000000000000000000000" HEX16_ZERO,
	  "fdffffffffffffffffffffffffffffff", NULL, 0, "faffffffffffffffffffffffffffffff" },
	{ "RFC 8439 A.3 #10", "01000000000000000400000000000000" HEX16_ZERO,
	  "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000"
	  "0000000000000000000000000000000001000000000000000000000000000000", NULL, 0,
	  "14000000000000005500000000000000" },
	{ "RFC 8439 A.3 #11", "01000000000000000400000000000000" HEX16_ZERO,
	  "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000"
	  "00000000000000000000000000000000", NULL, 0, "13000000000000000000000000000000" },
};

static void test_poly1305(void)
{
	size_t i, c;

	for (i = 0; i < sizeof(poly_vecs) / sizeof(poly_vecs[0]); i++) {
		const struct poly_vec *v = &poly_vecs[i];
		uint8_t key[32], msg[512], want[16], mac[16];
		struct poly1305_ctx ctx;
		size_t len, j;

		tu_hex(key, sizeof(key), v->key);
		tu_hex(want, sizeof(want), v->tag);
		memset(msg, 0, sizeof(msg));
		if (v->msg_hex) {
			len = tu_hex(msg, sizeof(msg), v->msg_hex);
		} else if (v->msg_text) {
			len = strlen(v->msg_text);
			memcpy(msg, v->msg_text, len);
		} else {
			len = v->msg_zeros;
		}

		poly1305(mac, msg, len, key);
		tu_check_mem(mac, want, 16, "%s: poly1305", v->name);

		/* Byte by byte through the incremental interface. */
		poly1305_init(&ctx, key);
		for (j = 0; j < len; j++)
			poly1305_update(&ctx, msg + j, 1);
		poly1305_final(&ctx, mac);
		tu_check_mem(mac, want, 16, "%s: poly1305_update byte by byte", v->name);

		for (c = 0; c < tu_poly_ncores; c++) {
			tu_poly1305_core(&tu_poly_cores[c], mac, msg, len, key);
			tu_check_mem(mac, want, 16, "%s: %s core", v->name, tu_poly_cores[c].name);
		}
	}
}

struct keygen_vec {
	const char *name;
	const char *key;
	const char *nonce;
	const char *otk;
};

static const struct keygen_vec keygen_vecs[] = {
	{ "RFC 8439 2.6.2", KEY_80_TO_9F, "000000000001020304050607",
	  "8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646" },
	{ "RFC 8439 2.8.2 one-time key", KEY_80_TO_9F, "070000004041424344454647",
	  "7bac2b252db447af09b67a55a4e955840ae1d6731075d9eb2a9375783ed553ff" },
	{ "RFC 8439 A.4 #1", KEY_ZERO, "000000000000000000000000",
	  "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7" },
	{ "RFC 8439 A.4 #2", KEY_ONE, "000000000000000000000002",
	  "ecfa254f845f647473d3cb140da9e87606cb33066c447b87bc2666dde3fbb739" },
	{ "RFC 8439 A.4 #3", KEY_1C92, "000000000000000000000002",
	  "965e3bc6f9ec7ed9560808f4d229f94b137ff275ca9b3fcbdd59deaad23310ae" },
	{ "RFC 8439 A.5 one-time key", KEY_1C92, "000000000102030405060708",
	  "bdf04aa95ce4de8995b14bb6a18fecaf26478f50c054f563dbc0a21e261572aa" },
};

/* RFC 8439 §2.6: the one-time key is the first 32 bytes of block 0. */
static void test_poly1305_keygen(void)
{
	size_t i;

	for (i = 0; i < sizeof(keygen_vecs) / sizeof(keygen_vecs[0]); i++) {
		const struct keygen_vec *v = &keygen_vecs[i];
		uint8_t key[32], nonce[12], want[32], block[64];
		struct chacha20_ctx ctx;

		tu_hex(key, sizeof(key), v->key);
		tu_hex(nonce, sizeof(nonce), v->nonce);
		tu_hex(want, sizeof(want), v->otk);
		chacha20_init(&ctx, key, nonce, 0);
		chacha20_block(block, ctx.state);
		tu_check_mem(block, want, 32, "%s: Poly1305 key generation", v->name);
		chacha20_clear(&ctx);
	}
}

struct aead_vec {
	const char *name;
	const char *key;
	const char *nonce;
	const char *ad;
	const char *plain;
	const char *cipher;
	const char *tag;
};

static const struct aead_vec aead_vecs[] = {
	{ "RFC 8439 2.8.2", KEY_80_TO_9F, "070000004041424344454647", "50515253c0c1c2c3c4c5c6c7",
	  sunscreen,
	  "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
	  "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
	  "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
	  "3ff4def08e4b7a9de576d26586cec64b6116",
	  "1ae10b594f09e26a7e902ecbd0600691" },
	{ "RFC 8439 A.5", KEY_1C92, "000000000102030405060708", "f33388860000000000004e91",
	  internet_drafts,
	  "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2"
	  "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf"
	  "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
	  "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4"
	  "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e"
	  "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
	  "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10"
	  "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29"
	  "a6ad5cb4022b02709b",
	  "eead9d67890cbb22392336fea1851f38" },
};

/* WireGuard's nonce is 32 zero bits || LE64(counter): usable when the RFC nonce starts with 4 zeros. */
static bool wg_nonce(const uint8_t nonce[12], uint64_t *counter)
{
	uint64_t n = 0;
	int i;

	if (nonce[0] | nonce[1] | nonce[2] | nonce[3])
		return false;
	for (i = 11; i >= 4; i--)
		n = n << 8 | nonce[i];
	*counter = n;
	return true;
}

static void test_aead_one(const struct aead_vec *v)
{
	uint8_t key[32], nonce[12], ad[64], want[512], out[512], back[512];
	size_t ad_len, len = strlen(v->plain);
	uint64_t counter;

	tu_hex(key, sizeof(key), v->key);
	tu_hex(nonce, sizeof(nonce), v->nonce);
	ad_len = tu_hex(ad, sizeof(ad), v->ad);
	tu_check(tu_hex(want, sizeof(want), v->cipher) == len, "%s: length", v->name);
	tu_hex(want + len, 16, v->tag);

	chacha20poly1305_ietf_encrypt(out, (const uint8_t *)v->plain, len, ad, ad_len, nonce, key);
	tu_check_mem(out, want, len + 16, "%s: ietf encrypt (ciphertext || tag)", v->name);

	memset(back, 0xa5, sizeof(back));
	tu_check(chacha20poly1305_ietf_decrypt(back, want, len + 16, ad, ad_len, nonce, key),
		 "%s: ietf decrypt rejected the RFC's tag", v->name);
	tu_check_mem(back, v->plain, len, "%s: ietf decrypt", v->name);

	/* A.5 is "AEAD decryption": also refuse it with the last tag bit flipped. */
	want[len + 15] ^= 0x80;
	memset(back, 0xa5, sizeof(back));
	tu_check(!chacha20poly1305_ietf_decrypt(back, want, len + 16, ad, ad_len, nonce, key),
		 "%s: ietf decrypt accepted a flipped tag bit", v->name);
	tu_check(memcmp(back, v->plain, 16) != 0, "%s: plaintext released on a bad tag", v->name);
	want[len + 15] ^= 0x80;

	if (!wg_nonce(nonce, &counter))
		return;
	chacha20poly1305_encrypt(out, (const uint8_t *)v->plain, len, ad, ad_len, counter, key);
	tu_check_mem(out, want, len + 16, "%s: WireGuard-nonce encrypt", v->name);
	memset(back, 0xa5, sizeof(back));
	tu_check(chacha20poly1305_decrypt(back, want, len + 16, ad, ad_len, counter, key),
		 "%s: WireGuard-nonce decrypt rejected the RFC's tag", v->name);
	tu_check_mem(back, v->plain, len, "%s: WireGuard-nonce decrypt", v->name);
}

static void test_aead(void)
{
	size_t i;

	for (i = 0; i < sizeof(aead_vecs) / sizeof(aead_vecs[0]); i++)
		test_aead_one(&aead_vecs[i]);
}

/* draft-irtf-cfrg-xchacha-03 §2.2.1 */
static void test_hchacha20(void)
{
	uint8_t key[32], nonce[16], want[32], out[32];

	tu_hex(key, sizeof(key), KEY_0_TO_1F);
	tu_hex(nonce, sizeof(nonce), "000000090000004a0000000031415927");
	tu_hex(want, sizeof(want), "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc");
	hchacha20(out, nonce, key);
	tu_check_mem(out, want, 32, "draft-irtf-cfrg-xchacha 2.2.1: hchacha20");
}

static void test_blake2s_abc(void)
{
	struct blake2s_state st;
	uint8_t want[32], out[32];

	/* RFC 7693 Appendix B */
	tu_hex(want, sizeof(want), "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982");
	blake2s(out, 32, (const uint8_t *)"abc", 3, NULL, 0);
	tu_check_mem(out, want, 32, "RFC 7693 Appendix B: BLAKE2s-256(\"abc\")");
	blake2s_init(&st, 32);
	blake2s_update(&st, (const uint8_t *)"a", 1);
	blake2s_update(&st, (const uint8_t *)"bc", 2);
	blake2s_final(&st, out);
	tu_check_mem(out, want, 32, "RFC 7693 Appendix B: incremental");
}

/*
 * WireGuard whitepaper §5.4: C0 = HASH(Construction), H0 = HASH(C0 || Identifier).
 * The expected values are those of the project's protocol reference.
 */
static void test_wireguard_constants(void)
{
	static const char construction[] = "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s";
	static const char identifier[] = "WireGuard v1 zx2c4 Jason@zx2c4.com";
	uint8_t c0[32], h0[32], want[32];
	struct blake2s_state st;

	blake2s(c0, 32, (const uint8_t *)construction, strlen(construction), NULL, 0);
	tu_hex(want, sizeof(want), "60e26daef327efc02ec335e2a025d2d016eb4206f87277f52d38d1988b78cd36");
	tu_check_mem(c0, want, 32, "WireGuard C0");

	blake2s_init(&st, 32);
	blake2s_update(&st, c0, 32);
	blake2s_update(&st, (const uint8_t *)identifier, strlen(identifier));
	blake2s_final(&st, h0);
	tu_hex(want, sizeof(want), "2211b361081ac566691243db458ad5322d9c6c662293e8b70ee19c65ba079ef3");
	tu_check_mem(h0, want, 32, "WireGuard H0");
}

int main(void)
{
	tu_check(strlen(ietf_submission) == 375, "the IETF text must be 375 bytes");
	tu_check(strlen(internet_drafts) == 265, "the A.5 text must be 265 bytes");
	test_block_function();
	test_stream();
	test_poly1305();
	test_poly1305_keygen();
	test_aead();
	test_hchacha20();
	test_blake2s_abc();
	test_wireguard_constants();
	tu_check(crypto_selftest(), "crypto_selftest() failed");
	return tu_exit_status("crypto-rfc");
}
