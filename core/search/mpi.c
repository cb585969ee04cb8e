/*
 * mpi.c — MPI for sweeps (no-ops without it): start and end when launched
 * by mpirun, the world, and gathers of ranked entries (byte copies: every
 * rank runs the same binary).
 */
#include "core/search/sweep.h"
#include "core/base/base.h"

#include <stdlib.h>

#ifdef CULONX_HAVE_MPI
#include <mpi.h>
#endif

/* ------------------------------------------------------------ MPI */

#ifdef CULONX_HAVE_MPI
static int mpi_inited_here;
#endif

void culonx_sweep_mpi_begin(int *argc, char ***argv, int *rank, int *size)
{
    *rank = 0, *size = 1;
#ifdef CULONX_HAVE_MPI
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return;
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) {
        if (MPI_Init(argc, argv) != MPI_SUCCESS) return;
        mpi_inited_here = 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
#else
    (void)argc, (void)argv;
#endif
}

void culonx_sweep_mpi_end(void)
{
#ifdef CULONX_HAVE_MPI
    if (mpi_inited_here) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) MPI_Finalize();
        mpi_inited_here = 0;
    }
#endif
}

void cx_core_mpi_world(int *rank, int *size)
{
    *rank = 0, *size = 1;
#ifdef CULONX_HAVE_MPI
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) {
        MPI_Comm_rank(MPI_COMM_WORLD, rank);
        MPI_Comm_size(MPI_COMM_WORLD, size);
    }
#endif
}

#ifdef CULONX_HAVE_MPI
/* Gathers n entries of every rank at rank 0; returns the concatenation
 * (rank 0) and its count, NULL elsewhere. */
culonx_sweep_entry *cx_core_mpi_gather_entries(const culonx_sweep_entry *e, int n, int rank,
                                               int size, int *total)
{
    int bytes = n * (int)sizeof *e;
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof *counts);
        displs = calloc((size_t)size, sizeof *displs);
    }
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int sum = 0;
    if (rank == 0) {
        for (int i = 0; i < size; i++)
            displs[i] = sum, sum += counts[i];
        all = malloc(sum > 0 ? (size_t)sum : 1);
    }
    MPI_Gatherv((void *)e, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    *total = sum / (int)sizeof *e;
    return (culonx_sweep_entry *)all;
}

/* Gathers n entries of every rank at every rank, in rank order; returns the
 * concatenation (free it) and its count; NULL when out of memory. */
culonx_sweep_entry *cx_core_mpi_allgather_entries(const culonx_sweep_entry *e, int n, int size,
                                                  int *total)
{
    int bytes = n * (int)sizeof *e;
    int *counts = calloc((size_t)size, sizeof *counts);
    int *displs = calloc((size_t)size, sizeof *displs);
    if (!counts || !displs) {
        free(counts), free(displs);
        return NULL; /* the other ranks then block: out of memory is fatal here */
    }
    MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    int sum = 0;
    for (int i = 0; i < size; i++)
        displs[i] = sum, sum += counts[i];
    char *all = malloc(sum > 0 ? (size_t)sum : 1);
    MPI_Allgatherv((void *)e, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    *total = sum / (int)sizeof *e;
    return (culonx_sweep_entry *)all;
}
#endif
