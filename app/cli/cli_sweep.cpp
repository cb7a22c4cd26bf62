/// \file cli_sweep.cpp
/// attention-lab-cli sweep: the frames of run::sweepFrames, each run through the session and
/// written by animation::writeSweep; the path printed.

#include "animation/sweep.hpp"
#include "cli/commands.hpp"

namespace attnlab::cli {

int commandSweep(const options::Options& o, std::ostream& out, std::ostream& err) {
  run::Session session;
  const animation::SweepWritten w = animation::writeSweep(
      o, run::sweepFrames(o, session),
      [&session](const options::LabSettings& lab) { return session.run(lab); },
      [&err](const std::string& note) {
        err << "attention-lab-cli: note: computed on the CPU: " << note << "\n";
      },
      terminalProgress("sweep: frame"));  // a model's frames take a while
  out << w.path.toUtf8().toStdString() << "\n";
  return 0;
}

}  // namespace attnlab::cli
