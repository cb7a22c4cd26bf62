#pragma once
/// \file commands.hpp
/// Internal to attention-lab-cli: the commands and render modes added to cli.cpp's — cost,
/// sweep, render --diff and --rollout, compute --rollout. Every run goes through run::Session.

#include <QString>
#include <functional>
#include <nlohmann/json.hpp>
#include <memory>
#include <ostream>

#include "options/options.hpp"
#include "run/run.hpp"
#include "views/export.hpp"
#include "views/html_page.hpp"
#include "views/picture.hpp"

namespace attnlab::cli {

using views::outputSize;

/// Exports plot to --out, then writes --layout-json when given (what was drawn: maps, cells,
/// texts; measured after the export's layout). Throws Error(kIo) when the JSON cannot be written.
void exportPicture(QCustomPlot& plot, const options::Options& o, const views::ImageSize& size);

/// attention-lab-cli decode --model M: the text scored token by token through the KV cache under
/// each --cache-window × --sink-tokens policy (and the full cache), as JSON; --out FILE plots the
/// perplexities beside the heads' sink mass.
int commandDecodeModel(const options::Options& o, std::ostream& out, std::ostream& err);
/// render with --diff or --rollout.
int renderCompared(const options::Options& o, std::ostream& out, std::ostream& err);
/// compute --rollout: the model's JSON with the captured layers up to --layer and "rollout".
int computeRollout(const options::Options& o, std::ostream& out, std::ostream& err);

/// compute on a trained translator: the model, the source, the output, every step (token,
/// probability, top 5) and every attention (docs/cli.md, "Command line (stable contract)").
nlohmann::json translatorJson(const results::Run& r);
/// render --plot training: the loss curves of dates-transformer and dates-transformer-unscaled
/// from their training.json (views::drawTrainingCurves). Throws OptionError when one is missing.
int renderTraining(const options::Options& o, std::ostream& out);

/// Progress of long work, for run::RunHooks::progress: "attention-lab-cli: layer 12 of 30,
/// 4.1 s" (`unit` "layer", "token", "figure" …) rewritten in place on stderr when stderr is a
/// terminal and the work has run for a second (erased when it ends); nothing otherwise; with
/// ATTNLAB_PROGRESS set, one line per report wherever stderr goes. Never cancels.
std::function<bool(int done, int total)> terminalProgress(const char* unit = "layer");
/// The CLI's run hooks: terminalProgress, and run::RunHooks::allow_overview as given (render's
/// pictures of every layer of a model: a pooled model view where the full run is over budget).
run::RunHooks cliHooks(bool allow_overview = false, const char* unit = "layer");
/// Runs settings through session with the CLI's hooks and prints the CPU-fallback note of
/// --backend opencl on err ("attention-lab-cli: note: computed on the CPU: …").
std::shared_ptr<const results::Run> runNoted(run::Session& session, const options::LabSettings& lab,
                                         std::ostream& err, bool allow_overview = false);

/// True when path ends in .html (any case): the interactive page.
bool isHtml(const QString& path);
/// The page's language for --lang: "zh_CN", else "en".
QString pageLanguage(const QString& language);
/// "Attention Lab · <model>" ("… · synthetic lab"), in the page's language.
QString pageTitle(const views::HtmlView& view, const QString& language);
/// Fits page under views::kHtmlLimitBytes (a pooled overview where the full data would not
/// fit), says its size on err ("attention-lab-cli: note: FILE: 1.2 MB (at most 20 MB …)") and
/// writes it. Throws OptionError when even the overview is over the limit, Error(kIo).
void writePage(views::HtmlPage& page, const QString& path, std::ostream& err);
/// render --out FILE.html: the page of run r (every head or --head N, every layer or --layer's).
int renderHtml(const options::Options& o, const std::shared_ptr<const results::Run>& r, std::ostream& out,
               std::ostream& err);
/// generate --out FILE.html: the page of generation g with its step slider.
void generationHtml(const options::Options& o, const std::shared_ptr<const results::Generated>& g,
                    std::ostream& err);

}  // namespace attnlab::cli
