/// \file cli_sweep.cpp
/// attention-lab-cli sweep: the frames written by views::writeSweep, the path printed.

#include "cli/commands.hpp"
#include "views/sweep.hpp"

namespace attnlab::cli {

int commandSweep(const options::Options& o, std::ostream& out, std::ostream& err) {
  run::Session session;
  const views::SweepWritten w = views::writeSweep(o, session, err);
  out << w.path.toUtf8().toStdString() << "\n";
  return 0;
}

}  // namespace attnlab::cli
