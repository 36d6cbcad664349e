#pragma once
// One `swat-gpu align` over the ranks of an MPI job (`mpirun -np N swat-gpu align Q.fa DB.fa`):
// every rank reads the inputs and searches its share of the database's targets (contiguous, of
// about equal residues; pipeline/shares.hpp) on its own engine, with the whole search's
// statistics; rank 0 gathers the hits, merges them as one search ranks them and writes the
// output, byte for byte what one process writes. A rank that fails ends the job: rank 0 says
// which and why in one line and exits 1 (2 where rank 0 itself found bad usage or input), no
// output file is left. Ranks of one node split its GPUs (each sees only its own:
// CUDA_VISIBLE_DEVICES narrowed) and its cores unless --gpus / --threads say otherwise.
//
// swat-gpu links no MPI library, so that it starts where none is installed; a build with MPI
// (SWAT_WITH_MPI) also makes swat-gpu-mpi, the same program with the MPI runner registered
// (mpi_align.cpp, the only file that sees MPI's headers), and swat-gpu started by mpirun hands
// itself to it (exec). A build without MPI says so in --version and refuses several ranks.

#include <ostream>
#include <string>

#include "pipeline/align_pipeline.hpp"

namespace swat::dist {

//! The number of ranks the launcher (Open MPI's mpirun, from OMPI_COMM_WORLD_SIZE) started this
//! process among; 0 when it was not started by one.
int launched_ranks();

//! The --version line about MPI: "MPI: Open MPI … (mpirun -np N swat-gpu align …)" or
//! "MPI: none (configured with SWAT_WITH_MPI=OFF)".
std::string mpi_version_line();

//! Runs `align` as one rank of the job launched_ranks() counts (see the file comment): output,
//! notices and the --timing line (of the ranks: search, exchange, merge) from rank 0 only; the
//! other ranks return quietly, also when the job failed (rank 0 reports it). In swat-gpu: exec
//! of swat-gpu-mpi beside it where it exists, else a usage_error for more than one rank, else
//! pipeline::run_align.
void run_align(const pipeline::align_options& options, std::ostream& stdout_stream, const notice_fn& notice);

//! The MPI runner and its --version line, as swat-gpu-mpi registers them (mpi_align.cpp).
using mpi_runner = void (*)(const pipeline::align_options&, std::ostream&, const notice_fn&);
using mpi_version_fn = std::string (*)();
//! Registers them (at static initialisation); returns true.
bool register_mpi_runner(mpi_runner run, mpi_version_fn version);

}  // namespace swat::dist
