/*
 * test_chakra.c — Chakra execution traces (core/output/chakra.c) read back
 * with libprotobuf-c and the same generated schema: every rank file is a
 * length-delimited stream of one GlobalMetadata (version, schema attribute)
 * and Nodes; ids are unique per file and every data dependency names a node
 * of the file; compute nodes carry num_ops and durations, collectives
 * comm_type/comm_size/pg_name; every COMM_SEND_NODE has exactly one
 * COMM_RECV_NODE on its destination rank with the sender as comm_src and the
 * same size and tag; the node count is what culonx_chakra_write reports; a
 * truncated file fails to parse. Skips (77) when built without protobuf-c.
 */
#define _GNU_SOURCE
#include "culonx.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#ifdef CULONX_HAVE_CHAKRA
#include <et_def.pb-c.h>

typedef struct {
    int rank, dst, src;
    int64_t size;
    int32_t tag;
    int matched;
} msg;

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len + 1);
    *n = b ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    return b;
}

/* next length-delimited message: returns its bytes and advances *pos; NULL at
 * the end or on a malformed length */
static const uint8_t *next(const uint8_t *b, size_t n, size_t *pos, size_t *len)
{
    uint64_t v = 0;
    int shift = 0;
    size_t p = *pos;
    if (p >= n) return NULL;
    while (p < n && shift < 35) {
        v |= (uint64_t)(b[p] & 0x7f) << shift;
        shift += 7;
        if (!(b[p++] & 0x80)) break;
    }
    if (v > n - p) return NULL;
    *len = (size_t)v;
    *pos = p + (size_t)v;
    return b + p;
}

static const ChakraProtoMsg__AttributeProto *attr(const ChakraProtoMsg__Node *nd, const char *name)
{
    for (size_t i = 0; i < nd->n_attr; i++)
        if (!strcmp(nd->attr[i]->name, name)) return nd->attr[i];
    return NULL;
}

/* Reads one rank file; appends sends and receives; returns nodes, -1 on error. */
static long read_rank(const char *path, int rank, msg *sends, int *ns, msg *recvs, int *nr)
{
    size_t n = 0, pos = 0, len = 0;
    uint8_t *b = slurp(path, &n);
    if (!b) return -1;
    const uint8_t *m = next(b, n, &pos, &len);
    ChakraProtoMsg__GlobalMetadata *md =
        m ? chakra_proto_msg__global_metadata__unpack(NULL, len, m) : NULL;
    long nodes = -1;
    if (!md || !md->version[0] || md->n_attr < 1 || strcmp(md->attr[0]->name, "schema")) goto out;
    chakra_proto_msg__global_metadata__free_unpacked(md, NULL);
    size_t cap = 1024, nid = 0;
    uint64_t *ids = malloc(cap * sizeof *ids), *deps = NULL;
    size_t ndeps = 0, capd = 0;
    nodes = 0;
    while ((m = next(b, n, &pos, &len))) {
        ChakraProtoMsg__Node *nd = chakra_proto_msg__node__unpack(NULL, len, m);
        if (!nd) {
            nodes = -1;
            break;
        }
        if (nid == cap) ids = realloc(ids, (cap *= 2) * sizeof *ids);
        ids[nid++] = nd->id;
        for (size_t k = 0; k < nd->n_data_deps; k++) {
            if (ndeps == capd) deps = realloc(deps, (capd = capd ? capd * 2 : 1024) * sizeof *deps);
            deps[ndeps++] = nd->data_deps[k];
        }
        const ChakraProtoMsg__AttributeProto *sz = attr(nd, "comm_size"),
                                             *tag = attr(nd, "comm_tag");
        switch (nd->type) {
        case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
            CU_ASSERT(attr(nd, "num_ops") != NULL);
            break;
        case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
            CU_ASSERT(attr(nd, "comm_type") && sz && attr(nd, "pg_name"));
            break;
        case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
            CU_ASSERT_FATAL(sz && tag && attr(nd, "comm_dst"));
            sends[(*ns)++] = (msg){
                rank, attr(nd, "comm_dst")->int32_val, rank, sz->int64_val, tag->int32_val, 0};
            break;
        case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
            CU_ASSERT_FATAL(sz && tag && attr(nd, "comm_src"));
            recvs[(*nr)++] = (msg){rank,          rank,           attr(nd, "comm_src")->int32_val,
                                   sz->int64_val, tag->int32_val, 0};
            break;
        default:
            CU_FAIL("unexpected node type");
        }
        nodes++;
        chakra_proto_msg__node__free_unpacked(nd, NULL);
    }
    if (pos != n) nodes = -1; /* trailing bytes that do not parse */
    /* ids unique, deps resolve: sort ids, binary-search deps */
    for (size_t i = 1; i < nid; i++)
        for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
            uint64_t t = ids[j];
            ids[j] = ids[j - 1], ids[j - 1] = t;
        }
    for (size_t i = 1; i < nid; i++)
        CU_ASSERT(ids[i] != ids[i - 1]);
    for (size_t k = 0; k < ndeps; k++) {
        size_t lo = 0, hi = nid;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (ids[mid] < deps[k])
                lo = mid + 1;
            else
                hi = mid;
        }
        CU_ASSERT(lo < nid && ids[lo] == deps[k]);
    }
    free(ids), free(deps);
out:
    free(b);
    return nodes;
}

static void test_round_trip(void)
{
    culonx_run *r = calloc(1, sizeof *r);
    culonx_error err;
    const char *sets[] = {"execution.tp=8",
                          "execution.pp=4",
                          "execution.dp=2",
                          "execution.gpus=64",
                          "execution.global-batch=16",
                          "execution.microbatch=1",
                          "model.layers=16"};
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-22b.xml", sets, 7, NULL, r, &err),
                          CULONX_OK);
    char dir[] = "/tmp/cx_chakra_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    culonx_trace_options opt = {0};
    culonx_trace_info info;
    CU_ASSERT_EQUAL_FATAL(culonx_chakra_write(dir, r, &opt, &info, &err), CULONX_OK);
    msg *sends = calloc(100000, sizeof *sends), *recvs = calloc(100000, sizeof *recvs);
    int ns = 0, nr = 0;
    long total = 0;
    char path[256];
    for (int s = 0; s < 4; s++) {
        snprintf(path, sizeof path, "%s/culonx.%d.et", dir, s);
        long k = read_rank(path, s, sends, &ns, recvs, &nr);
        CU_ASSERT(k > 0);
        total += k;
    }
    snprintf(path, sizeof path, "%s/culonx.4.et", dir);
    CU_ASSERT(fopen(path, "rb") == NULL); /* exactly pp files */
    CU_ASSERT_EQUAL(total, info.events);
    CU_ASSERT(ns > 0 && ns == nr && ns == info.flows);
    for (int i = 0; i < ns; i++) {
        int found = 0;
        for (int j = 0; j < nr; j++)
            if (recvs[j].rank == sends[i].dst && recvs[j].src == sends[i].rank &&
                recvs[j].tag == sends[i].tag && recvs[j].size == sends[i].size && !recvs[j].matched)
                recvs[j].matched = 1, found++;
        CU_ASSERT_EQUAL(found, 1);
    }
    /* a truncated file does not parse */
    snprintf(path, sizeof path, "%s/culonx.1.et", dir);
    size_t n = 0;
    uint8_t *b = slurp(path, &n);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_FATAL(b && f);
    fwrite(b, 1, n - 3, f);
    fclose(f);
    free(b);
    int ns2 = 0, nr2 = 0;
    CU_ASSERT_EQUAL(read_rank(path, 1, sends, &ns2, recvs, &nr2), -1);
    for (int s = 0; s < 4; s++) {
        snprintf(path, sizeof path, "%s/culonx.%d.et", dir, s);
        remove(path);
    }
    remove(dir);
    free(sends), free(recvs), free(r);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("chakra", NULL, NULL);
    CU_add_test(s, "write, read back, sends match receives", test_round_trip);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
#else
int main(void)
{
    printf("SKIP: built without protobuf-c (no Chakra export)\n");
    return 77;
}
#endif
