// libnmt_spm_bridge.so: SentencePiece behind the C interface of
// vocab/spm_bridge_abi.h. Every entry point catches everything, because an
// exception cannot cross into the other linker namespace.
#include "vocab/spm_bridge_abi.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

struct nmt_spm_model {
  sentencepiece::SentencePieceProcessor processor;
};

namespace {

char* copy_to_malloc(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p != nullptr) std::memcpy(p, s.data(), s.size() + 1);
  return p;
}

int fail(char** error, const std::string& message) {
  if (error != nullptr) *error = copy_to_malloc(message);
  return 1;
}

int check(const sentencepiece::util::Status& status, char** error) {
  if (status.ok()) return 0;
  return fail(error, status.ToString());
}

// Runs body, turning any C++ exception into an error code and message.
template <typename Body>
int guarded(char** error, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return fail(error, std::string("SentencePiece failed: ") + e.what());
  } catch (...) {
    return fail(error, "SentencePiece failed with an unknown exception.");
  }
}

}  // namespace

extern "C" {

int nmt_spm_abi_version(void) { return NMT_SPM_BRIDGE_ABI_VERSION; }

void nmt_spm_free(void* p) { std::free(p); }

int nmt_spm_train(const char* const* keys, const char* const* values, int n, char** error) {
  return guarded(error, [&] {
    std::unordered_map<std::string, std::string> kwargs;
    for (int i = 0; i < n; ++i) kwargs[keys[i]] = values[i];
    return check(sentencepiece::SentencePieceTrainer::Train(kwargs), error);
  });
}

int nmt_spm_load(const char* path, nmt_spm_model** model, char** error) {
  return guarded(error, [&] {
    auto m = std::make_unique<nmt_spm_model>();
    if (int rc = check(m->processor.Load(path), error)) return rc;
    *model = m.release();
    return 0;
  });
}

void nmt_spm_unload(nmt_spm_model* model) { delete model; }

int nmt_spm_piece_size(const nmt_spm_model* model) { return model->processor.GetPieceSize(); }
int nmt_spm_unk_id(const nmt_spm_model* model) { return model->processor.unk_id(); }
int nmt_spm_pad_id(const nmt_spm_model* model) { return model->processor.pad_id(); }
int nmt_spm_bos_id(const nmt_spm_model* model) { return model->processor.bos_id(); }
int nmt_spm_eos_id(const nmt_spm_model* model) { return model->processor.eos_id(); }

const char* nmt_spm_id_to_piece(const nmt_spm_model* model, int id) {
  if (id < 0 || id >= model->processor.GetPieceSize()) return nullptr;
  return model->processor.IdToPiece(id).c_str();
}

int nmt_spm_encode_ids(const nmt_spm_model* model, const char* text, size_t len, int32_t* out,
                       size_t capacity, size_t* count, char** error) {
  return guarded(error, [&] {
    std::vector<int> ids;
    if (int rc = check(model->processor.Encode(std::string(text, len), &ids), error)) return rc;
    *count = ids.size();
    if (ids.size() <= capacity) {
      for (size_t i = 0; i < ids.size(); ++i) out[i] = ids[i];
    }
    return 0;
  });
}

int nmt_spm_encode_offsets(const nmt_spm_model* model, const char* text, size_t len, int32_t* ids,
                           uint32_t* begins, uint32_t* ends, size_t capacity, size_t* count, char** error) {
  return guarded(error, [&] {
    const auto spt = model->processor.EncodeAsImmutableProto(std::string(text, len));
    *count = spt.pieces_size();
    if (*count <= capacity) {
      for (size_t i = 0; i < *count; ++i) {
        const auto piece = spt.pieces(static_cast<int>(i));
        ids[i] = static_cast<int32_t>(piece.id());
        begins[i] = piece.begin();
        ends[i] = piece.end();
      }
    }
    return 0;
  });
}

int nmt_spm_encode_pieces(const nmt_spm_model* model, const char* text, size_t len, char** out,
                          size_t* out_len, char** error) {
  return guarded(error, [&] {
    std::vector<std::string> pieces;
    if (int rc = check(model->processor.Encode(std::string(text, len), &pieces), error)) return rc;
    std::string joined;
    for (const auto& p : pieces) {
      joined += p;
      joined.push_back('\0');
    }
    char* buffer = static_cast<char*>(std::malloc(joined.size() + 1));
    if (buffer == nullptr) return fail(error, "out of memory");
    std::memcpy(buffer, joined.data(), joined.size());
    buffer[joined.size()] = '\0';
    *out = buffer;
    *out_len = joined.size();
    return 0;
  });
}

int nmt_spm_decode_ids(const nmt_spm_model* model, const int32_t* ids, size_t n, char** out,
                       size_t* out_len, char** error) {
  return guarded(error, [&] {
    const int size = model->processor.GetPieceSize();
    std::vector<int> v(ids, ids + n);
    for (int id : v) {
      if (id < 0 || id >= size) {
        return fail(error, "id " + std::to_string(id) + " is outside the vocabulary of " +
                               std::to_string(size) + " pieces");
      }
    }
    std::string text;
    if (int rc = check(model->processor.Decode(v, &text), error)) return rc;
    *out = copy_to_malloc(text);
    if (*out == nullptr) return fail(error, "out of memory");
    *out_len = text.size();
    return 0;
  });
}

}  // extern "C"
