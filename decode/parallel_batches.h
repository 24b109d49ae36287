// Several batches (or the parts of one batch) decoded at once, each on its
// own core with one thread.
// Decoding is a chain of small steps: split over two cores, every matrix
// product of a beam-4 step is too small to keep both busy, and each step's
// dozens of operators pay thread start-up and barriers twice. One batch per
// core keeps each core busy with whole products and no barriers (the
// inter-thread parallelism of CTranslate2's translators, inside one process).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace nmt::decode {

// Where each batch of `n` length-sorted sentences starts, then n: at most
// `batch_size` sentences a batch. Decoded one at a time (parallel <= 1),
// every batch but the last is full. Decoded `parallel` at once, there are as
// many batches as full ones would need, rounded up to a multiple of
// `parallel`, of equal sizes (+-1), so that no core sits idle at the end while
// another finishes a long batch.
std::vector<size_t> split_into_batches(size_t n, int64_t batch_size, int64_t parallel);

// The positions [begin, end) of one batch of length-sorted sentences dealt
// into min(parts, end - begin) parts in turn (part g takes begin + g,
// begin + g + parts, ...): each part gets long and short sentences alike, so
// that parts decoded at once, one per core, end at about the same time.
std::vector<std::vector<size_t>> split_batch(size_t begin, size_t end, int64_t parts);

// Calls job(i) for every i in [0, jobs), on min(workers, jobs) threads (the
// calling thread is one of them), taking jobs in order as threads become
// free. With more than one thread, each runs ATen (and oneDNN) on one thread
// and OpenBLAS runs on the calling thread; the caller's thread settings are
// restored afterwards. With one thread, the jobs run on the caller with its
// settings unchanged. The first exception a job throws is rethrown here
// after every thread has stopped (no further jobs start).
void run_parallel_batches(size_t jobs, int64_t workers, const std::function<void(size_t)>& job);

// The same in rounds: `rounds` lists where each round of jobs starts, then
// the number of jobs ({0, 2, 4}: jobs 0-1, then 2-3). A round's jobs start
// only once every job of the rounds before has ended (the parts of one batch,
// then the next batch's), on threads that last through all rounds.
void run_parallel_rounds(const std::vector<size_t>& rounds, int64_t workers, const std::function<void(size_t)>& job);

}  // namespace nmt::decode
