/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mcjoin: one MCMemberRecord join through the SA, as an IPoIB driver or an
 * MPI library sends it, for the integration tests (built for tests only).
 *
 *   mcjoin CA PORT MGID [SL]
 *
 * Joins the port as a full member of MGID (IPv6 notation). With SL the
 * group is created if missing (Q_Key, P_Key 0xffff, TClass, SL and flow
 * label given, as creation requires); without, the group must exist (the
 * IPoIB broadcast group). Exits 0 when the SA answers with status 0 and
 * prints "MLID PORTGUID": the MLID the SA gave and the port that joined.
 * Under umad2sim, SIM_HOST picks the node. */
#include <arpa/inet.h>
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define SA_CLASS 0x03
#define SA_VERSION 2
#define METHOD_SET 0x02
#define ATTR_MCMEMBER 0x0038
#define QP1_QKEY 0x80010000
#define MAD_LEN 256
#define SA_DATA 56		/* MAD header 24, RMPP 12, SA header 20 */

/* MCMemberRecord component mask bits (IBA 15.2.5.17) */
enum { CM_MGID = 0, CM_PORT_GID = 1, CM_QKEY = 2, CM_TCLASS = 6,
       CM_PKEY = 7, CM_SL = 12, CM_FLOW = 13, CM_JOIN_STATE = 16 };

static void put16(uint8_t *p, uint16_t v) { v = htons(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static void fill(uint8_t *mad, const umad_port_t *port, const uint8_t *mgid,
		 int sl)
{
	uint8_t *rec = mad + SA_DATA;
	uint64_t mask = 1ull << CM_MGID | 1ull << CM_PORT_GID |
			1ull << CM_JOIN_STATE;

	mad[0] = 1;			/* base version */
	mad[1] = SA_CLASS;
	mad[2] = SA_VERSION;
	mad[3] = METHOD_SET;
	put64(mad + 8, 0x6d636a0000000000ull | (uint64_t)getpid());
	put16(mad + 16, ATTR_MCMEMBER);
	memcpy(rec, mgid, 16);
	memcpy(rec + 16, &port->gid_prefix, 8);	/* already big endian */
	memcpy(rec + 24, &port->port_guid, 8);
	rec[48] = 0x01;			/* scope 0, join state: full member */
	if (sl >= 0) {
		put32(rec + 32, 0x0b1b);	/* Q_Key */
		put16(rec + 40, 0xffff);	/* P_Key: the default partition */
		put32(rec + 44, (uint32_t)sl << 28);	/* SL, flow label 0, hop 0 */
		mask |= 1ull << CM_QKEY | 1ull << CM_TCLASS | 1ull << CM_PKEY |
			1ull << CM_SL | 1ull << CM_FLOW;
	}
	put64(mad + 48, mask);
}

int main(int argc, char **argv)
{
	uint8_t mgid[16];
	umad_port_t port;
	void *umad;
	int fd, agent, len = MAD_LEN, sl = argc > 4 ? atoi(argv[4]) : -1;
	uint8_t *mad;

	if (argc < 4 || argc > 5 || inet_pton(AF_INET6, argv[3], mgid) != 1) {
		fprintf(stderr, "usage: mcjoin CA PORT MGID [SL]\n");
		return 2;
	}
	if (umad_init() < 0 || umad_get_port(argv[1], atoi(argv[2]), &port) < 0 ||
	    (fd = umad_open_port(argv[1], atoi(argv[2]))) < 0 ||
	    (agent = umad_register(fd, SA_CLASS, SA_VERSION, 0, NULL)) < 0) {
		fprintf(stderr, "mcjoin: cannot open %s port %s\n", argv[1], argv[2]);
		return 1;
	}
	umad = umad_alloc(1, umad_size() + MAD_LEN);
	if (!umad)
		return 1;
	memset(umad, 0, umad_size() + MAD_LEN);
	mad = umad_get_mad(umad);
	fill(mad, &port, mgid, sl);
	umad_set_addr(umad, (int)port.sm_lid, 1, (int)port.sm_sl, QP1_QKEY);
	if (umad_send(fd, agent, umad, MAD_LEN, 1000, 3) < 0 ||
	    umad_recv(fd, umad, &len, 5000) < 0 || umad_status(umad)) {
		fprintf(stderr, "mcjoin: no answer from the SA\n");
		return 1;
	}
	mad = umad_get_mad(umad);
	if (mad[4] || mad[5]) {
		fprintf(stderr, "mcjoin: the SA refused: status 0x%02x%02x\n",
			mad[4], mad[5]);
		return 1;
	}
	printf("0x%04x 0x%016llx\n",
	       (unsigned)(mad[SA_DATA + 36] << 8 | mad[SA_DATA + 37]),
	       (unsigned long long)be64toh(port.port_guid));
	umad_release_port(&port);
	return 0;
}
