// The front page cannot rot quietly: every command of README.md's ```sh
// blocks (as scripts/check_readme.sh reads them, which runs them all) uses
// flags the executables take and files the repository has, and every
// relative link of the README and docs/ leads to a file that exists.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace nmt::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The README's commands, one a line (check_readme.sh --list: "BLOCK<TAB>COMMAND").
std::vector<std::string> readme_commands() {
  const auto r = run_command(shell_quote(source_dir() + "/scripts/check_readme.sh") + " --list");
  EXPECT_EQ(r.code, 0) << r.output;
  std::vector<std::string> commands;
  for (const auto& line : split_lines(r.output)) {
    const auto tab = line.find('\t');
    if (tab != std::string::npos) commands.push_back(line.substr(tab + 1));
  }
  return commands;
}

// The flags one executable's invocation in `command` uses: the words from
// `program` on that start with "--", up to a pipe, a redirection or a comment.
std::vector<std::string> flags_after(const std::string& command, const std::string& program) {
  std::vector<std::string> flags;
  auto at = command.find(program + " ");
  if (at == std::string::npos) return flags;
  std::istringstream words(command.substr(at + program.size()));
  for (std::string w; words >> w;) {
    if (w == "|" || w == "#" || w[0] == '<' || w[0] == '>' || w == "&&" || w == ";") break;
    if (w.rfind("--", 0) == 0 && w.size() > 2) flags.push_back(w.substr(0, w.find('=')));
  }
  return flags;
}

TEST(Readme, IsAFrontPageWithTheTwoCommandsNearTheTop) {
  const auto lines = split_lines(read_text(source_dir() + "/README.md"));
  EXPECT_LE(lines.size(), 320u) << "README.md is the front page: details belong in docs/";
  std::string top;
  for (std::size_t i = 0; i < std::min<std::size_t>(40, lines.size()); ++i) top += lines[i] + "\n";
  EXPECT_NE(top.find("scripts/demo.sh"), std::string::npos);
  EXPECT_NE(top.find("scripts/test.sh"), std::string::npos);
}

TEST(Readme, CommandsUseFlagsTheExecutablesTake) {
  const auto commands = readme_commands();
  ASSERT_GE(commands.size(), 8u);
  int checked = 0;
  for (const std::string program : {"build/translator", "build/trainer"}) {
    const std::string binary = binary_dir() + "/" + program.substr(program.find('/') + 1);
    ASSERT_TRUE(fs::exists(binary)) << binary;
    const auto help = run_command(shell_quote(binary) + " --help");
    ASSERT_EQ(help.code, 0) << help.output;
    for (const auto& command : commands) {
      for (const auto& flag : flags_after(command, program)) {
        const std::regex word("(^|[^-\\w])" + flag + "($|[^-\\w])");
        EXPECT_TRUE(std::regex_search(help.output, word)) << program << " --help has no " << flag << ": " << command;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 6);
}

TEST(Readme, CommandsNameFilesTheRepositoryHas) {
  // Words that name a file of the checkout (not one the commands write).
  const std::regex path_word("(^|[\\s'\"=])((configs|examples|scripts|tests|tools|bench)/[\\w./-]+)");
  int checked = 0;
  for (const auto& command : readme_commands()) {
    for (std::sregex_iterator it(command.begin(), command.end(), path_word), end; it != end; ++it) {
      const std::string path = (*it)[2];
      EXPECT_TRUE(fs::exists(source_dir() + "/" + path)) << path << " in: " << command;
      ++checked;
    }
  }
  EXPECT_GE(checked, 3);
}

TEST(Docs, RelativeLinksLeadToFilesThatExist) {
  std::vector<fs::path> pages = {fs::path(source_dir()) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(source_dir()) / "docs")) {
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  }
  ASSERT_GE(pages.size(), 6u);
  // [text](target) and <img src="target">; targets with a scheme are not ours.
  const std::regex link("\\]\\(([^)\\s]+)\\)|src=\"([^\"]+)\"");
  int checked = 0;
  for (const auto& page : pages) {
    const std::string text = read_text(page.string());
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      std::string target = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
      target = target.substr(0, target.find('#'));
      if (target.empty()) continue;  // an anchor on the same page
      EXPECT_TRUE(fs::exists(page.parent_path() / target)) << page.filename() << " links to " << target;
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

}  // namespace
}  // namespace nmt::test
