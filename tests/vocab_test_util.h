// A test suite sharing one real SentencePiece vocabulary trained on the toy
// corpus (data_test_util.h), made once per suite.
#pragma once

#include <gtest/gtest.h>

#include "data_test_util.h"
#include "vocab/vocabularies.h"

namespace nmt::test {

class ToyVocabularyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    vocabs_ = new vocab::Vocabularies(vocab::prepare_vocabularies(toy_corpus_config(*dir_, 300), dir_->path("out")));
  }
  static void TearDownTestSuite() {
    delete vocabs_;
    delete dir_;
    vocabs_ = nullptr;
    dir_ = nullptr;
  }
  static inline TempDir* dir_ = nullptr;
  static inline vocab::Vocabularies* vocabs_ = nullptr;
};

}  // namespace nmt::test
