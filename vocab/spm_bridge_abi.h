// The plain C interface of libnmt_spm_bridge.so, the only code that links
// SentencePiece. It lives in its own linker namespace (dlmopen, see
// docs/sentencepiece_bridge.md), so nothing but C types may cross: no C++ objects, no
// exceptions, and memory the bridge allocates is freed by nmt_spm_free.
//
// Conventions: functions returning int give 0 on success; on failure they set
// *error (when error is not NULL) to a message the caller frees with
// nmt_spm_free.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The bridge builds with hidden visibility; these are its only exports.
#define NMT_SPM_API __attribute__((visibility("default")))

typedef struct nmt_spm_model nmt_spm_model;

// Bumped whenever a signature below changes; the loader refuses a mismatch.
#define NMT_SPM_BRIDGE_ABI_VERSION 2

NMT_SPM_API int nmt_spm_abi_version(void);

// Frees a buffer or message the bridge returned.
NMT_SPM_API void nmt_spm_free(void* p);

// Trains a model with SentencePiece's named options (e.g. "input",
// "model_prefix", "vocab_size"), given as n parallel key/value strings.
NMT_SPM_API int nmt_spm_train(const char* const* keys, const char* const* values, int n, char** error);

// Loads a model file. *model receives a handle for the calls below.
NMT_SPM_API int nmt_spm_load(const char* path, nmt_spm_model** model, char** error);
NMT_SPM_API void nmt_spm_unload(nmt_spm_model* model);

// Vocabulary queries. Special ids are -1 when the model has none.
NMT_SPM_API int nmt_spm_piece_size(const nmt_spm_model* model);
NMT_SPM_API int nmt_spm_unk_id(const nmt_spm_model* model);
NMT_SPM_API int nmt_spm_pad_id(const nmt_spm_model* model);
NMT_SPM_API int nmt_spm_bos_id(const nmt_spm_model* model);
NMT_SPM_API int nmt_spm_eos_id(const nmt_spm_model* model);
// The piece of an id, owned by the model (valid until unload); NULL when out of range.
NMT_SPM_API const char* nmt_spm_id_to_piece(const nmt_spm_model* model, int id);

// Encodes text[0, len) to ids into out[0, capacity). *count receives the
// number of ids; when it exceeds capacity nothing useful was written and the
// caller retries with a larger buffer. Safe to call from several threads.
NMT_SPM_API int nmt_spm_encode_ids(const nmt_spm_model* model, const char* text, size_t len, int32_t* out,
                       size_t capacity, size_t* count, char** error);

// Encodes text[0, len) as nmt_spm_encode_ids does, with each id's bytes in
// the text: begins[i], ends[i] (SentencePiece's surface spans; a piece that
// normalization made up has begin == end).
NMT_SPM_API int nmt_spm_encode_offsets(const nmt_spm_model* model, const char* text, size_t len, int32_t* ids,
                                       uint32_t* begins, uint32_t* ends, size_t capacity, size_t* count,
                                       char** error);

// Encodes text to pieces: *out receives the pieces, each followed by a NUL
// byte, *out_len their total length; free *out with nmt_spm_free.
NMT_SPM_API int nmt_spm_encode_pieces(const nmt_spm_model* model, const char* text, size_t len, char** out,
                          size_t* out_len, char** error);

// Decodes ids to text; *out (NUL-terminated, *out_len bytes) is freed with nmt_spm_free.
NMT_SPM_API int nmt_spm_decode_ids(const nmt_spm_model* model, const int32_t* ids, size_t n, char** out,
                       size_t* out_len, char** error);

#ifdef __cplusplus
}  // extern "C"
#endif
