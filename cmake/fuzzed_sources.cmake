# The product sources each fuzz target compiles itself, instrumented (one
# list for both builds): tests/fuzz/CMakeLists.txt builds them with clang's
# coverage and sanitizers, and the main build keeps them out of its unity
# batches so that a target linking libnmt.a never pulls a batch holding a
# second copy of them.
set(NMT_FUZZED_line_reader text/line_reader.cpp text/utf8.cpp)
set(NMT_FUZZED_config util/config.cpp util/config_json.cpp)
set(NMT_FUZZED_checkpoint storage/checkpoint.cpp storage/state_dict.cpp storage/torch_archive.cpp util/atomic_file.cpp)
set(NMT_FUZZED_state_dict storage/state_dict.cpp storage/torch_archive.cpp)
set(NMT_FUZZED_sentencepiece vocab/sentencepiece_vocab.cpp vocab/spm_bridge_loader.cpp)
set(NMT_FUZZED_score eval/bleu.cpp eval/chrf.cpp eval/tokenizer_13a.cpp)
set(NMT_FUZZED_html text/html_document.cpp text/html_nodes.cpp text/markup_transfer.cpp text/join_pieces.cpp text/span.cpp)
set(NMT_FUZZED_sentences text/sentence_splitter.cpp text/split_to_fit.cpp text/join_pieces.cpp text/span.cpp)
set(NMT_FUZZED_zip document/zip_archive.cpp document/document.cpp document/office_document.cpp document/epub_document.cpp)
set(NMT_FUZZED_xml document/xml_part.cpp document/paragraph_text.cpp document/office_dialects.cpp
    document/translated_fragment.cpp document/subtitle_document.cpp document/markdown_document.cpp
    document/markdown_inline.cpp)
set(NMT_FUZZED_ct2_model interop/ct2_model_file.cpp interop/ct2_transformer.cpp)
set(NMT_FUZZED_token_list vocab/token_list_vocab.cpp)
set(NMT_FUZZED_marian interop/npz_file.cpp interop/marian_model.cpp)
set(NMT_FUZZED_placeholders text/placeholders.cpp text/masked_text.cpp text/span.cpp)
set(NMT_FUZZED_tmx memory/tmx.cpp)
set(NMT_FUZZED_glossary memory/glossary.cpp)
set(NMT_FUZZED_argos_metadata interop/argos_package.cpp)
set(NMT_FUZZ_TARGETS line_reader config checkpoint state_dict sentencepiece score html sentences zip xml ct2_model
    token_list marian placeholders tmx glossary argos_metadata)
