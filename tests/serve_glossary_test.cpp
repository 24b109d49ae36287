// A request's glossary through the server on the trained sample model: its
// terms appear in text and HTML translations, over the translator's own
// glossary; a term that cannot be met is listed in unmetTerms; bad glossary
// fields are 400s; /spec documents the field.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "memory/glossary.h"
#include "tests/sample_model_util.h"
#include "tests/serve_test_util.h"

namespace nmt::test {
namespace {

using nlohmann::json;

class ServedGlossary : public SampleModelTest {
 protected:
  static json post(httplib::Client& c, const json& body, int expected = 200) {
    const auto r = c.Post("/translate", body.dump(), "application/json");
    if (!r) {
      ADD_FAILURE() << "no answer";
      return json();
    }
    EXPECT_EQ(r->status, expected) << body.dump() << ": " << r->body;
    return json::parse(r->body);
  }
  static json request(json q, json glossary) {
    json body{{"q", std::move(q)}, {"source", "en"}, {"target", "de"}};
    if (!glossary.is_null()) body["glossary"] = std::move(glossary);
    return body;
  }
};

TEST_F(ServedGlossary, ARequestsTermsAppearInTextAndHtmlAndTheRestIsUntouched) {
  ServedModel served(sample_model_dir(), {}, {});
  auto c = served.client();
  const json q = {"The cup is cheap.", "The mice come into the shop.", "We know that the doctors have got up."};
  const json glossary = {{"cup", "Becher"}, {"shop", "Geschäft"}};
  const json plain = post(c, request(q, nullptr));
  const json with = post(c, request(q, glossary));
  EXPECT_NE(with["translatedText"][0].get<std::string>().find("Becher"), std::string::npos) << with.dump();
  EXPECT_NE(with["translatedText"][1].get<std::string>().find("Geschäft"), std::string::npos) << with.dump();
  EXPECT_EQ(with["translatedText"][2], plain["translatedText"][2]);
  EXPECT_FALSE(with.contains("unmetTerms"));
  json html = request("<p>The <i>cup</i> is cheap.</p>", glossary);
  html["format"] = "html";
  EXPECT_NE(post(c, html)["translatedText"].get<std::string>().find("Becher"), std::string::npos);
  // Form data: one "source<TAB>target" a line.
  const auto form = c.Post("/translate", httplib::Params{{"q", "The cup is cheap."}, {"source", "en"}, {"target", "de"},
                                                         {"glossary", "cup\tBecher\n"}});
  ASSERT_TRUE(form);
  EXPECT_NE(json::parse(form->body)["translatedText"].get<std::string>().find("Becher"), std::string::npos) << form->body;
}

TEST_F(ServedGlossary, TheRequestsTermsGoOverTheServersAndUnmetOnesAreListed) {
  ServedModel served(sample_model_dir(), {}, {});
  auto server_terms = std::make_shared<memory::Glossary>();
  server_terms->add("cup", "Becher");
  server_terms->add("shop", "Geschäft");
  served.translator().set_glossary(server_terms);
  auto c = served.client();
  const json out = post(c, request({"The cup is cheap.", "The mice come into the shop."}, {{"cup", "Pokal"}}));
  EXPECT_NE(out["translatedText"][0].get<std::string>().find("Pokal"), std::string::npos) << out.dump();
  EXPECT_NE(out["translatedText"][1].get<std::string>().find("Geschäft"), std::string::npos) << out.dump();
  // "Q" is not in the sample vocabulary: the term is listed, per text, in q's shape.
  const json unmet = post(c, request("The cup is cheap.", {{"cup", "Quart"}}));
  ASSERT_TRUE(unmet.contains("unmetTerms")) << unmet.dump();
  EXPECT_EQ(unmet["unmetTerms"], (json{{{"source", "cup"}, {"target", "Quart"},
                                        {"reason", "the model's vocabulary cannot write it"}}}));
}

TEST_F(ServedGlossary, BadGlossariesAre400s) {
  ServedModel served(sample_model_dir(), {}, {});
  auto c = served.client();
  EXPECT_NE(post(c, request("x", json::array({"cup"})), 400)["error"].get<std::string>().find("glossary must be an object"),
            std::string::npos);
  EXPECT_NE(post(c, request("x", {{"cup", 3}}), 400)["error"].get<std::string>().find("to a string"), std::string::npos);
  EXPECT_NE(post(c, request("x", {{"cup", " "}}), 400)["error"].get<std::string>().find("needs a source and a target"),
            std::string::npos);
  json many = json::object();
  for (int i = 0; i < 1001; ++i) many["t" + std::to_string(i)] = "x";
  EXPECT_NE(post(c, request("x", many), 400)["error"].get<std::string>().find("at most 1000"), std::string::npos);
  const auto spec = c.Get("/spec");
  ASSERT_TRUE(spec);
  EXPECT_NE(spec->body.find("\"glossary\""), std::string::npos);
  EXPECT_NE(spec->body.find("unmetTerms"), std::string::npos);
}

}  // namespace
}  // namespace nmt::test
