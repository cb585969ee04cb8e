/*
 * registry.c — the model families by arch (model.arch) and by name. Each
 * family lives in its own file (models/gpt.c, models/llama.c) and exports
 * one cx_model_family; a new family is one file plus one line here (and its
 * culonx_arch value in culonx.h).
 */
#include "models/model.h"

#include <stdio.h>
#include <string.h>

static const cx_model_family *const families[] = {
    [CULONX_ARCH_GPT] = &cx_model_gpt,
    [CULONX_ARCH_LLAMA] = &cx_model_llama,
    [CULONX_ARCH_MOE] = &cx_model_moe,
};
#define NFAMILIES ((int)(sizeof families / sizeof families[0]))

const cx_model_family *cx_model_family_of(culonx_arch arch)
{
    return (unsigned)arch < (unsigned)NFAMILIES ? families[arch] : NULL;
}

const cx_model_family *cx_model_family_named(const char *name)
{
    for (int i = 0; i < NFAMILIES; i++)
        if (families[i] && strcmp(name, families[i]->name) == 0) return families[i];
    return NULL;
}

void cx_model_family_names(char *buf, size_t len)
{
    size_t n = 0;
    if (len) buf[0] = '\0';
    for (int i = 0; i < NFAMILIES && n < len; i++) {
        if (!families[i]) continue;
        int k = snprintf(buf + n, len - n, "%s%s", n ? " or " : "", families[i]->name);
        if (k < 0) break;
        n += (size_t)k;
    }
}
