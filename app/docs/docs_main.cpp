/// \file docs_main.cpp
/// attention-lab-docs FOLDER: writes the man pages and shell completion of attention-lab-cli and
/// attention-lab from the option table into FOLDER (docs.hpp). Run by the build
/// (app/CMakeLists.txt) and by the test that compares them with the committed copies
/// (docs/generated). Not installed.

#include <QtGlobal>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "docs/docs.hpp"

namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file.flush()) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: attention-lab-docs FOLDER\n", stderr);
    return 2;
  }
  // The same pages wherever they are built: only the source tree's bundled models are named.
  qunsetenv("ATTNLAB_MODELS_DIR");
  const std::string dir = argv[1];
  using attnlab::docs::Program;
  try {
    for (const Program program : {Program{0}, Program{attnlab::options::kWindow}}) {
      const std::string name = attnlab::docs::programName(program);
      write(dir + "/" + name + ".1", attnlab::docs::manPage(program, ATTNLAB_VERSION_STRING));
      write(dir + "/" + name + ".bash", attnlab::docs::bashCompletion(program));
      write(dir + "/_" + name, attnlab::docs::zshCompletion(program));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attention-lab-docs: %s\n", e.what());
    return 1;
  }
  return 0;
}
