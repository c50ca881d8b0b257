#include "commandline.h"

#include "core/attention/attention.h"
#include "core/session/builtinmodel.h"
#include "core/models/headdetector.h"
#include "core/session/hubcache.h"
#include "core/session/modelsession.h"
#include "core/session/presets.h"
#include "core/session/sessionfile.h"
#include "core/text/tokenizer.h"
#include "core/attention/tracejson.h"
#include "ui/views/teaching/presetnames.h"
#include "ui/render/stepfigure.h"
#include "ui/render/colormap.h"
#include "ui/export/exportfiles.h"
#include "ui/export/handoutwriter.h"
#include "ui/export/printpage.h"
#include "ui/export/reportwriter.h"
#include "ui/render/heatmapexport.h"
#include "ui/render/headlinespainter.h"
#include "ui/render/overviewpainter.h"
#include "ui/render/slidepainter.h"
#include "ui/views/teaching/teachingslides.h"
#include "ui/render/gridfigure.h"
#include "ui/render/atomicwrite.h"
#include "ui/render/blockpainter.h"
#include "core/models/instruments.h"
#include "core/session/instrumentfiles.h"
#include "core/formats/utf8.h"
#include "ui/hub/hubdownloader.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPainter>
#include <QRegularExpression>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>

#include <unistd.h>

namespace app {

namespace {

const QStringList languages = {QStringLiteral("en"), QStringLiteral("zh_CN")};

void printOut(const QString& text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

void printError(const QString& text)
{
    const QByteArray bytes = (QStringLiteral("attention-explorer: ") + text + QLatin1Char('\n')).toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stderr);
}

struct Options {
    QCommandLineOption compute{QStringLiteral("compute"),
                               QStringLiteral("Print every step of FILE's computation as JSON."), QStringLiteral("FILE")};
    QCommandLineOption exportHeatmap{QStringLiteral("export-heatmap"),
                                     QStringLiteral("Write the heatmap to OUT (.png, .svg or .pdf)."),
                                     QStringLiteral("OUT")};
    QCommandLineOption listPresets{QStringLiteral("list-presets"), QStringLiteral("List the built-in presets.")};
    QCommandLineOption download{QStringLiteral("download"),
                                QStringLiteral("Download the files the program reads of a Hugging Face Hub model "
                                               "(config, safetensors weights, tokenizer; never pickles) into the Hugging "
                                               "Face cache ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub) from "
                                               "$HF_ENDPOINT (default https://huggingface.co), sending $HF_TOKEN or the "
                                               "login token when there is one; prints the snapshot folder."),
                                QStringLiteral("ORG/NAME[@REVISION]")};
    QCommandLineOption session{QStringLiteral("session"), QStringLiteral("Source: a session file."),
                               QStringLiteral("FILE")};
    QCommandLineOption preset{QStringLiteral("preset"), QStringLiteral("Source: a built-in preset."),
                              QStringLiteral("NAME")};
    QCommandLineOption tokens{QStringLiteral("tokens"),
                              QStringLiteral("Source: typed text, with the default embeddings and weights."),
                              QStringLiteral("TEXT")};
    QCommandLineOption model{QStringLiteral("model"),
                             QStringLiteral("Source: a GPT-2-family checkpoint folder, or a Hub repository id "
                                            "ORG/NAME[@REVISION] in the Hugging Face cache (with --text)."),
                             QStringLiteral("DIR")};
    QCommandLineOption text{QStringLiteral("text"), QStringLiteral("The text a --model source reads."),
                            QStringLiteral("TEXT")};
    QCommandLineOption layer{QStringLiteral("layer"),
                             QStringLiteral("The layer of a model shown, from 1 (default 1, or the session's)."),
                             QStringLiteral("L")};
    QCommandLineOption step{QStringLiteral("step"),
                            QStringLiteral("Heatmap step: scores, scaled_scores or weights (default weights)."),
                            QStringLiteral("STEP"), QStringLiteral("weights")};
    QCommandLineOption head{QStringLiteral("head"),
                            QStringLiteral("Head, from 1, of the heatmap and the slides (default 1) and of the report's "
                                           "weighted values (default the first two); for --export-lines also all (its "
                                           "default)."),
                            QStringLiteral("N"), QStringLiteral("1")};
    QCommandLineOption query{QStringLiteral("query"),
                             QStringLiteral("The query the slides and the report walk, from 1 (default 1, or the last "
                                            "token under a causal mask, where query 1 sees only itself)."),
                             QStringLiteral("N")};
    QCommandLineOption size{QStringLiteral("size"),
                            QStringLiteral("PNG size in pixels, e.g. 1200x1000 (default chosen from n)."),
                            QStringLiteral("WIDTHxHEIGHT")};
    QCommandLineOption colormap{QStringLiteral("colormap"),
                                QStringLiteral("Colour map: %1.").arg(render::colormapNames().join(QStringLiteral(", "))),
                                QStringLiteral("NAME")};
    QCommandLineOption annotate{QStringLiteral("annotate"), QStringLiteral("Print each cell's value in it.")};
    QCommandLineOption colourRange{QStringLiteral("colour-range"),
                                   QStringLiteral("Colour range of the attention heatmaps of --export-heatmap, --export-overview, "
                                                  "--export-report and --export-handout: %1 (default fixed: 0 to 1 for "
                                                  "weights).")
                                       .arg(render::colourRangeNames().join(QStringLiteral(", "))),
                                   QStringLiteral("RANGE")};
    QCommandLineOption exportReport{QStringLiteral("export-report"),
                                    QStringLiteral("Write a PDF report of every step of the source to OUT (.pdf)."),
                                    QStringLiteral("OUT")};
    QCommandLineOption exportHandout{QStringLiteral("export-handout"),
                                     QStringLiteral("Write a one-page PDF handout of the source to OUT (.pdf): the tokens, "
                                                    "the heatmap and the seven formulas."),
                                     QStringLiteral("OUT")};
    QCommandLineOption exportCode{QStringLiteral("export-code"),
                                  QStringLiteral("Write PyTorch code that reproduces the source to OUT (.py)."),
                                  QStringLiteral("OUT")};
    QCommandLineOption exportSteps{QStringLiteral("export-steps"),
                                   QStringLiteral("Write every step of the source into FOLDER: one CSV per step and head, "
                                                  "and trace.json as --compute prints it."),
                                   QStringLiteral("FOLDER")};
    QCommandLineOption exportSlides{QStringLiteral("export-slides"),
                                    QStringLiteral("Write the teaching slides of the source to OUT (.pdf), one per page."),
                                    QStringLiteral("OUT")};
    QCommandLineOption exportOverview{QStringLiteral("export-overview"),
                                      QStringLiteral("Write the grid of every layer and head of the source to OUT "
                                                     "(.png, .svg or .pdf)."),
                                      QStringLiteral("OUT")};
    QCommandLineOption exportLines{QStringLiteral("export-lines"),
                                   QStringLiteral("Write the head view of the source to OUT (.png, .svg or .pdf): tokens "
                                                  "in two columns joined by lines weighted by attention (--layer L, "
                                                  "--head N or all)."),
                                   QStringLiteral("OUT")};
    QCommandLineOption exportLens{QStringLiteral("export-lens"),
                                  QStringLiteral("Write the logit lens of a model to OUT (.json, .csv, .png, .svg or "
                                                 ".pdf): the token each layer would predict at each position."),
                                  QStringLiteral("OUT")};
    QCommandLineOption exportAttribution{QStringLiteral("export-attribution"),
                                         QStringLiteral("Write the direct logit attribution of --target at --position "
                                                        "to OUT (.json, .csv, .png, .svg or .pdf): each head's and "
                                                        "MLP's share of its logit."),
                                         QStringLiteral("OUT")};
    QCommandLineOption exportBlock{QStringLiteral("export-block"),
                                   QStringLiteral("Write the Block view of a model to OUT (.png, .svg or .pdf): the "
                                                  "shown layer (--layer L) at --position, from the stream in to the "
                                                  "next tokens."),
                                   QStringLiteral("OUT")};
    QCommandLineOption exportPatching{QStringLiteral("export-patching"),
                                      QStringLiteral("Write activation patching of --text against --corrupt to OUT "
                                                     "(.json, .csv, .png, .svg or .pdf): logit(--answer) - "
                                                     "logit(--wrong) with each stream cell and head restored."),
                                      QStringLiteral("OUT")};
    QCommandLineOption generate{QStringLiteral("generate"),
                                QStringLiteral("Append N tokens to a model's text and print the text and its ids as "
                                               "JSON (greedy unless --temperature is above 0)."),
                                QStringLiteral("N")};
    QCommandLineOption target{QStringLiteral("target"),
                              QStringLiteral("The token of --export-lens and --export-attribution: one token of the "
                                             "model (\" Mary\") or #ID (attribution's default: the top prediction)."),
                              QStringLiteral("TOKEN")};
    QCommandLineOption position{QStringLiteral("position"),
                                QStringLiteral("The position --export-attribution and --export-block explain, from "
                                               "1 (default the last)."),
                                QStringLiteral("P")};
    QCommandLineOption corrupt{QStringLiteral("corrupt"),
                               QStringLiteral("The corrupted text of --export-patching (as many tokens as --text)."),
                               QStringLiteral("TEXT")};
    QCommandLineOption answer{QStringLiteral("answer"), QStringLiteral("--export-patching's right answer: one token."),
                              QStringLiteral("TOKEN")};
    QCommandLineOption wrong{QStringLiteral("wrong"), QStringLiteral("--export-patching's wrong answer: one token."),
                             QStringLiteral("TOKEN")};
    QCommandLineOption temperature{QStringLiteral("temperature"),
                                   QStringLiteral("--generate's temperature (default 0: the most probable token)."),
                                   QStringLiteral("T")};
    QCommandLineOption topK{QStringLiteral("top-k"),
                            QStringLiteral("--generate samples among the K most probable tokens (default all)."),
                            QStringLiteral("K")};
    QCommandLineOption topP{QStringLiteral("top-p"),
                            QStringLiteral("--generate samples among the most probable tokens whose probability "
                                           "reaches P (default 1)."),
                            QStringLiteral("P")};
    QCommandLineOption seed{QStringLiteral("seed"),
                            QStringLiteral("--generate's seed: the same seed and options give the same tokens "
                                           "(default 0)."),
                            QStringLiteral("S")};
    QCommandLineOption lang{QStringLiteral("lang"),
                            QStringLiteral("Language of the interface: %1.").arg(languages.join(QStringLiteral(" or "))),
                            QStringLiteral("LANGUAGE")};

    /** The options that shape a figure; each action reads some of them (commandActions). */
    QList<const QCommandLineOption*> figureOptions() const
    {
        return {&step, &head, &query, &size, &colormap, &annotate, &colourRange, &target, &position, &corrupt,
                &answer, &wrong, &temperature, &topK, &topP, &seed};
    }

    /** The options other than the actions (commandActions has those): the sources, the figure options, --lang. */
    QList<QCommandLineOption> others() const
    {
        return {session, preset,   tokens,   model,   text,   layer, step,        head, query, size, colormap, annotate,
                colourRange, target, position, corrupt, answer, wrong, temperature, topK, topP, seed, lang};
    }
};

/** Thrown inside this file only, caught in runCommandLine. */
struct Failure {
    int status;
    QString message;
};

/** A source as the commands use it: a plain session, or a model's shown layer as one (its model is that
 *  layer's AttentionModel) with the opened model beside it. */
struct Source {
    core::Session session;
    std::optional<core::OpenedModelSession> model;
};

/** The layer given with --layer, or the session's: checked against the model. */
int shownLayer(const QCommandLineParser& p, const Options& o, const core::OpenedModelSession& opened)
{
    const int layers = opened.pass->shape().layers;
    if (!p.isSet(o.layer))
        return opened.session.layer;
    bool ok = false;
    const int layer = p.value(o.layer).toInt(&ok);
    if (!ok || layer < 1 || layer > layers)
        throw Failure{ExitRefused,
                      QStringLiteral("--layer: expected a number from 1 to %1 (the model's layers), got \"%2\"")
                          .arg(layers)
                          .arg(p.value(o.layer))};
    return layer;
}

/** The source for an opened model: the shown layer as a session, titled by the model's folder and layer, its
 *  tokens as people read them ("␣cat") and its origin named, as the window shows it; --compute prints the
 *  vocabulary's own tokens beside (SPEC §5). */
Source modelSource(const QCommandLineParser& p, const Options& o, core::OpenedModelSession opened)
{
    // Finite weights and edits can still overflow float32 on the way: then there are no logits to print.
    if (opened.pass->topTokens(1).empty()) {
        const int overflow = opened.pass->overflowLayer(opened.pass->n() - 1);
        const QString where = overflow < opened.pass->shape().layers
            ? QStringLiteral("in layer %1, whose output is not finite").arg(overflow + 1)
            : QStringLiteral("on the way to the logits");
        throw Failure{ExitRefused, QStringLiteral("%1: the forward pass overflows float32 %2 (the weights or the "
                                                  "edits are too large); there is no prediction")
                                       .arg(QString::fromStdString(opened.folder), where)};
    }
    const int layer = shownLayer(p, o, opened);
    opened.session.layer = layer;
    const std::string name = core::modelName(opened.folder);
    Source source;
    source.session.model = core::shownLayerModel(*opened.pass, layer - 1, name);
    const auto title = opened.session.extras.find("title");
    source.session.extras["title"] = title != opened.session.extras.end() && title->is_string()
        ? title->get<std::string>()
        : ui::modelSessionTitle(QString::fromStdString(name), layer).toStdString();
    source.model = std::move(opened);
    return source;
}

/** A session file of either kind: version 2 names a model (SPEC §5), any other is read as SPEC §2 says. */
/** --layer given with a source that is not a model: that source has one layer, so 1 is taken (SPEC lists
 *  [--layer L] for every source of --export-lines) and any other is refused, naming the source. */
void checkOneLayer(const QCommandLineParser& p, const Options& o, const QString& source)
{
    if (p.isSet(o.layer) && p.value(o.layer) != QLatin1String("1"))
        throw Failure{ExitRefused, QStringLiteral("--layer: %1 is not a model and has one layer, 1; other layers are "
                                                  "chosen only in a model (--model or a model session)")
                                       .arg(source)};
}

Source sessionSource(const QCommandLineParser& p, const Options& o, const QString& file)
{
    std::string error;
    const std::string path = file.toStdString();
    const auto text = core::readSessionText(path, error);  // once: a pipe or a FIFO has its text only once
    if (!text)
        throw Failure{ExitRefused, QString::fromStdString(error)};
    if (core::isModelSessionText(*text)) {
        auto opened = core::openModelSessionText(*text, path, error);
        if (!opened)
            throw Failure{ExitRefused, QString::fromStdString(error)};
        return modelSource(p, o, std::move(*opened));
    }
    checkOneLayer(p, o, file);
    auto s = core::parseSessionFileText(*text, path, error);
    if (!s)
        throw Failure{ExitRefused, QString::fromStdString(error)};
    return {std::move(*s), std::nullopt};
}

/** The session file the source is read from: --compute's FILE, else a FILE given on its own, as the window takes
 *  it (`attention-explorer FILE`); empty when none is. A second file is refused, named. */
QString sourceFile(const QCommandLineParser& p, const Options& o)
{
    QStringList files = p.positionalArguments();
    if (p.isSet(o.compute) && !p.value(o.compute).isEmpty())
        files.prepend(p.value(o.compute));
    if (files.size() > 1)
        throw Failure{ExitRefused, QStringLiteral("%1: one file is read (%2); give one source")
                                       .arg(files.mid(1).join(QStringLiteral(", ")), files.first())};
    return files.value(0);
}

/** The input a message about the whole run names: "--model DIR", "--session FILE" or the file given; empty when
 *  there is none. */
QString inputName(const QCommandLineParser& p, const Options& o)
{
    for (const QCommandLineOption* option : {&o.model, &o.session, &o.compute})
        if (p.isSet(*option) && !p.value(*option).isEmpty())
            return QStringLiteral("--") + option->names().constFirst() + QLatin1Char(' ') + p.value(*option);
    return p.positionalArguments().value(0);
}

/** --model's value as model.path: a folder, made absolute; or, when no such folder exists and it reads as one, a Hub
 *  repository id as given, which opening looks up in the Hugging Face cache (SPEC §7). */
std::string modelArgument(const QString& value)
{
    const QFileInfo folder(value);
    if (core::isBuiltinModel(value.toStdString()) || (!folder.exists() && core::parseHubId(value.toStdString())))
        return value.toStdString();
    return folder.absoluteFilePath().toStdString();
}

/** Refuses two sources (file being sourceFile()'s), naming them, and --text without --model. */
void checkOneSource(const QCommandLineParser& p, const Options& o, const QString& file)
{
    QStringList given;
    if (!file.isEmpty())
        given << file;
    for (const QCommandLineOption* option : {&o.session, &o.preset, &o.tokens, &o.model})
        if (p.isSet(*option))
            given << QStringLiteral("--") + option->names().constFirst();
    if (given.size() > 1)
        throw Failure{ExitRefused, QStringLiteral("give one source: a file, --session, --preset, --tokens or --model "
                                                  "(given: %1)")
                                       .arg(given.join(QStringLiteral(", ")))};
    if (p.isSet(o.text) && !p.isSet(o.model))
        throw Failure{ExitRefused, QStringLiteral("--text: give it with --model DIR")};
}

Source loadSource(const QCommandLineParser& p, const Options& o, const QString& computeFile)
{
    checkOneSource(p, o, computeFile);
    if (!computeFile.isEmpty() || p.isSet(o.session))
        return sessionSource(p, o, computeFile.isEmpty() ? p.value(o.session) : computeFile);
    if (p.isSet(o.model)) {
        if (!p.isSet(o.text))
            throw Failure{ExitRefused, QStringLiteral("--model: give the text it reads with --text \"TEXT\"")};
        core::ModelSession session;
        session.modelPath = modelArgument(p.value(o.model));
        session.text = p.value(o.text).toStdString();
        core::ModelSessionNames flags;
        flags.modelFolder = "--model";
        flags.text = "--text";
        flags.layer = "--layer";
        std::string error;
        auto opened = core::openModelSession(session, {}, error, {}, flags);
        if (!opened)
            throw Failure{ExitRefused, QString::fromStdString(error)};
        return modelSource(p, o, std::move(*opened));
    }
    checkOneLayer(p, o, p.isSet(o.tokens) ? QStringLiteral("--tokens") : QStringLiteral("the preset"));
    if (p.isSet(o.tokens)) {
        const auto tokens = core::tokenize(p.value(o.tokens).toStdString());
        if (tokens.empty())
            throw Failure{ExitRefused, QStringLiteral("--tokens: the text has no tokens")};
        Source s;
        s.session.model = core::modelForTokens(tokens);
        if (auto error = core::validate(s.session.model))
            throw Failure{ExitRefused, QStringLiteral("--tokens: ") + QString::fromStdString(*error)};
        return s;
    }
    const QString name = p.isSet(o.preset) ? p.value(o.preset) : QStringLiteral("illustrated");
    auto s = core::preset(name.toStdString());
    if (!s) {
        QStringList names;
        for (const auto& info : core::presetList())
            names << QString::fromStdString(info.name);
        throw Failure{ExitRefused, QStringLiteral("--preset: no preset named \"%1\"; the presets are %2")
                                       .arg(name, names.join(QStringLiteral(", ")))};
    }
    return {std::move(*s), std::nullopt};
}

/** --compute FILE, or --compute with a source in place of FILE. A model adds SPEC §5's keys. */
int computeCommand(const QCommandLineParser& p, const Options& o)
{
    const bool sourceGiven = p.isSet(o.session) || p.isSet(o.preset) || p.isSet(o.tokens) || p.isSet(o.model);
    const QString file = sourceFile(p, o);
    if (file.isEmpty() && !sourceGiven)
        throw Failure{ExitRefused, QStringLiteral("--compute: give a session FILE, or a source (--session, --preset, "
                                                  "--tokens or --model) in its place")};
    const Source source = loadSource(p, o, file);
    const core::Trace trace = core::compute(source.session.model);
    const core::JsonEntries extras = source.model
        ? core::modelComputeEntries(*source.model->pass, source.model->session.layer)
        : core::JsonEntries{};
    // Written as it is made: the text of 8192 tokens is some 5 GB, never held whole.
    const auto print = [](std::string_view text) { return std::fwrite(text.data(), 1, text.size(), stdout) == text.size(); };
    core::JsonWriter writer(print);
    core::writeComputeJson(writer, trace, extras);
    if (!writer.finish() || !print("\n") || std::fflush(stdout) != 0)
        throw Failure{ExitFailed, QStringLiteral("could not write to standard output")};
    return ExitOk;
}

/** --colormap, checked; nothing when not given. */
std::optional<render::ColormapId> colormapOption(const QCommandLineParser& p, const Options& o)
{
    if (!p.isSet(o.colormap))
        return std::nullopt;
    const auto id = render::colormapFromName(p.value(o.colormap));
    if (!id)
        throw Failure{ExitRefused, QStringLiteral("--colormap: expected one of %1, got \"%2\"")
                                       .arg(render::colormapNames().join(QStringLiteral(", ")), p.value(o.colormap))};
    return id;
}

/** --colour-range, checked; fixed when not given. */
render::ColourRange colourRangeOption(const QCommandLineParser& p, const Options& o)
{
    if (!p.isSet(o.colourRange))
        return render::ColourRange::Fixed;
    const auto range = render::colourRangeFromName(p.value(o.colourRange));
    if (!range)
        throw Failure{ExitRefused, QStringLiteral("--colour-range: expected one of %1, got \"%2\"")
                                       .arg(render::colourRangeNames().join(QStringLiteral(", ")), p.value(o.colourRange))};
    return *range;
}

/** Says on standard error what a log colour range could not place (render::logScaleNote and its sibling); nothing
 *  for an empty note. */
void printLogScaleNote(const QString& note)
{
    if (!note.isEmpty())
        printError(QStringLiteral("note: --colour-range log: ") + note);
}

int exportHeatmapCommand(const QCommandLineParser& p, const Options& o)
{
    const QString out = p.value(o.exportHeatmap);
    const QString suffix = QFileInfo(out).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") && suffix != QLatin1String("pdf"))
        throw Failure{ExitRefused, QStringLiteral("--export-heatmap: %1: the file must end in .png, .svg or .pdf").arg(out)};

    const QString stepName = p.value(o.step);
    const auto step = core::stepFromKey(stepName.toStdString());
    if (!step || (*step != core::Step::Scores && *step != core::Step::ScaledScores && *step != core::Step::Weights))
        throw Failure{ExitRefused,
                      QStringLiteral("--step: expected scores, scaled_scores or weights, got \"%1\"").arg(stepName)};

    QSize size;
    if (p.isSet(o.size)) {
        static const QRegularExpression re(QStringLiteral("^(\\d{1,5})[xX](\\d{1,5})$"));
        const auto m = re.match(p.value(o.size));
        const int w = m.hasMatch() ? m.captured(1).toInt() : 0, h = m.hasMatch() ? m.captured(2).toInt() : 0;
        if (w < 16 || h < 16 || w > 16384 || h > 16384)
            throw Failure{ExitRefused, QStringLiteral("--size: expected WIDTHxHEIGHT from 16x16 to 16384x16384, got \"%1\"")
                                           .arg(p.value(o.size))};
        size = QSize(w, h);
    }

    render::HeatmapStyle style;
    style.colormap = colormapOption(p, o).value_or(render::defaultColormap(*step));
    style.annotate = p.isSet(o.annotate);
    style.colourRange = colourRangeOption(p, o);

    const core::Session session = loadSource(p, o, sourceFile(p, o)).session;
    bool ok = false;
    const int head = p.value(o.head).toInt(&ok);
    if (!ok || head < 1 || head > session.model.heads())
        throw Failure{ExitRefused, QStringLiteral("--head: expected a number from 1 to %1, got \"%2\"")
                                       .arg(session.model.heads())
                                       .arg(p.value(o.head))};

    const core::Trace trace = core::compute(session.model);
    const render::HeatmapData data = ui::heatmapData(trace, *step, head - 1);
    {
        const render::HeatmapRenderer renderer(data, style);
        // A PNG without --size is drawn at twice the on-screen size: sharp on slides and in print.
        if (size.isEmpty() && suffix == QLatin1String("png"))
            size = renderer.preferredSize() * 2;
        const QSize drawn = size.isEmpty() ? renderer.preferredSize() : size;
        if (style.annotate && !renderer.annotates(QRectF(QPointF(0, 0), QSizeF(drawn))))
            printError(QStringLiteral("note: --annotate: the %1 × %2 cells are too small for their numbers at %3 × %4; "
                                      "the heatmap is drawn without them (a larger --size may fit them)")
                           .arg(data.values.rows())
                           .arg(data.values.cols())
                           .arg(drawn.width())
                           .arg(drawn.height()));
        printLogScaleNote(render::logScaleNote(renderer.colourScale().belowLogScale()));
    }
    const render::ExportResult result = render::exportHeatmap(data, style, out, size);
    if (!result.written)
        throw Failure{ExitFailed, result.error};
    return ExitOk;
}

/** The output path of an export flag, refused unless it ends in .suffix. */
QString outputPath(const QCommandLineParser& p, const QCommandLineOption& option, const QString& suffix)
{
    const QString out = p.value(option);
    if (QFileInfo(out).suffix().compare(suffix, Qt::CaseInsensitive) != 0)
        throw Failure{ExitRefused, QStringLiteral("--%1: %2: the file must end in .%3").arg(option.names().constFirst(), out, suffix)};
    return out;
}

QString sessionTitle(const core::Session& session)
{
    const auto title = session.extras.find("title");
    return title != session.extras.end() && title->is_string()
        ? ui::sessionTitleForPeople(QString::fromStdString(title->get<std::string>()))
        : QString();
}

/** The head and query (both from 0) the slides and the report walk: --head N and --query N, checked against the
 *  trace; without --query the last token under a causal mask (query 1 would see only itself), else the first.
 *  headGiven (when not null) says whether --head was given. */
std::pair<int, int> walkedHeadAndQuery(const QCommandLineParser& p, const Options& o, const core::Trace& trace,
                                       bool* headGiven = nullptr)
{
    const auto number = [&p](const QCommandLineOption& option, int last) {
        bool ok = false;
        const int value = p.value(option).toInt(&ok);
        if (!ok || value < 1 || value > last)
            throw Failure{ExitRefused, QStringLiteral("--%1: expected a number from 1 to %2, got \"%3\"")
                                           .arg(option.names().constFirst())
                                           .arg(last)
                                           .arg(p.value(option))};
        return value - 1;
    };
    if (headGiven)
        *headGiven = p.isSet(o.head);
    const int head = p.isSet(o.head) ? number(o.head, trace.headCount()) : 0;
    const bool causal = trace.model->options.mask == core::Mask::Causal;
    const int query = p.isSet(o.query) ? number(o.query, trace.n()) : causal ? std::max(0, trace.n() - 1) : 0;
    return {head, query};
}

/** Writes a PDF of the source's trace to the path given with option (the report or the handout), its
 *  attention heatmaps in --colour-range. */
int exportTraceCommand(const QCommandLineParser& p, const Options& o, const QCommandLineOption& option,
                       const exports::TraceWriter& write)
{
    const QString out = outputPath(p, option, QStringLiteral("pdf"));
    const render::ColourRange range = colourRangeOption(p, o);
    const core::Session session = loadSource(p, o, sourceFile(p, o)).session;
    const core::Trace trace = core::compute(session.model);
    const render::ExportResult result = write(trace, sessionTitle(session), out, range);
    if (!result.written)
        throw Failure{ExitFailed, result.error};
    printLogScaleNote(render::logScaleNoteOfHeatmaps(result.belowLogScale));
    return ExitOk;
}

int exportCodeCommand(const QCommandLineParser& p, const Options& o)
{
    const QString out = outputPath(p, o.exportCode, QStringLiteral("py"));
    const core::Session session = loadSource(p, o, sourceFile(p, o)).session;
    QString error;
    if (!exports::writePytorchFile(session.model, sessionTitle(session), out, &error))
        throw Failure{ExitFailed, error};
    return ExitOk;
}

/** Every step of the source as CSV files and trace.json, into a folder. */
int exportStepsCommand(const QCommandLineParser& p, const Options& o)
{
    const QString folder = p.value(o.exportSteps);
    if (folder.isEmpty())
        throw Failure{ExitRefused, QStringLiteral("--export-steps: give the folder to write into")};
    const Source source = loadSource(p, o, sourceFile(p, o));
    const core::Trace trace = core::compute(source.session.model);
    // A model's trace.json names its tokens as --compute does, as the vocabulary writes them (SPEC §5).
    std::vector<std::string> tokens;
    if (source.model)
        tokens = core::vocabularyTokens(*source.model->pass);
    QString error;
    if (!exports::writeStepFiles(trace, folder, &error, nullptr, tokens))
        throw Failure{ExitFailed, error};
    return ExitOk;
}

/** The report with its weighted values walking --query and --head (walkedHeadAndQuery). */
int exportReportCommand(const QCommandLineParser& p, const Options& o)
{
    const exports::TraceWriter write = [&p, &o](const core::Trace& trace, const QString& title, const QString& path,
                                                render::ColourRange range) {
        bool headGiven = false;
        const auto [head, query] = walkedHeadAndQuery(p, o, trace, &headGiven);
        return exports::reportWriter({headGiven ? head : -1, query})(trace, title, path, range);
    };
    return exportTraceCommand(p, o, o.exportReport, write);
}

/** The slides of the teaching mode for --head, walking --query (walkedHeadAndQuery). */
int exportSlidesCommand(const QCommandLineParser& p, const Options& o)
{
    const QString out = outputPath(p, o.exportSlides, QStringLiteral("pdf"));
    const core::Session session = loadSource(p, o, sourceFile(p, o)).session;
    const core::Trace trace = core::compute(session.model);
    const auto [head, query] = walkedHeadAndQuery(p, o, trace);
    QString error;
    if (!render::writeSlideDeck(ui::buildSlides(trace, head, query), sessionTitle(session), out, &error))
        throw Failure{ExitFailed, error};
    return ExitOk;
}

/** The output path of a figure export: refused unless it ends in .png, .svg or .pdf. */
QString figurePath(const QCommandLineParser& p, const QCommandLineOption& option)
{
    const QString out = p.value(option);
    if (!render::heatmapExportFormats().contains(QFileInfo(out).suffix().toLower()))
        throw Failure{ExitRefused, QStringLiteral("--%1: %2: the file must end in .png, .svg or .pdf")
                                       .arg(option.names().constFirst(), out)};
    return out;
}

/** Every layer and head of the source: a model's every layer, a plain session's heads as one layer. */
render::AttentionGrid sourceGrid(const Source& source)
{
    render::AttentionGrid grid;
    if (source.model) {
        QStringList tokens;
        for (const auto& t : source.session.model.tokens)
            tokens << QString::fromStdString(t);
        grid = render::attentionGridFromModel(*source.model->pass, tokens);
        if (const auto scores = core::detectHeadsAsEdited(*source.model->pass)) {  // labels as the window's
            grid.induction = scores->induction;
            grid.duplicate = scores->duplicate;
        }
    } else {
        grid = render::attentionGridFromTrace(core::compute(source.session.model));
    }
    // A model's source is titled by its shown layer; the grid is of every layer, so of the model.
    const auto title = source.model ? source.model->session.extras.find("title") : source.session.extras.end();
    grid.title = !source.model ? sessionTitle(source.session)
        : title != source.model->session.extras.end() && title->is_string()
        ? QString::fromStdString(title->get<std::string>())
        : QString::fromStdString(core::modelName(source.model->folder));
    return grid;
}

/** The figure style of the command line's exports: the light palette, the application's font. */
template <typename Style>
Style exportPalette(Style style)
{
    QPalette palette;
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::Text, Qt::black);
    palette.setColor(QPalette::Highlight, QColor(0x30, 0x8c, 0xe8));
    style.palette = palette;
    return style;
}

int exportOverviewCommand(const QCommandLineParser& p, const Options& o)
{
    const QString out = figurePath(p, o.exportOverview);
    render::OverviewStyle style = exportPalette(render::OverviewStyle());
    style.colourRange = colourRangeOption(p, o);
    style.colormap = colormapOption(p, o).value_or(render::ColormapId::Viridis);
    const Source source = loadSource(p, o, sourceFile(p, o));
    const render::OverviewPainter painter(std::make_shared<render::AttentionGrid>(sourceGrid(source)), style);
    QSize size = painter.preferredSize();
    if (QFileInfo(out).suffix().toLower() == QLatin1String("png"))
        size *= 2;  // as the heatmap: sharp on slides and in print
    Eigen::Index belowLogScale = 0;
    const render::ExportResult result = render::exportFigure(
        [&painter, &belowLogScale](QPainter* q, const QRectF& target) { belowLogScale = painter.paint(q, target); },
        style.palette.color(QPalette::Base), painter.grid().title, out, size);
    if (!result.written)
        throw Failure{ExitFailed, result.error};
    printLogScaleNote(render::logScaleNoteOfHeatmaps(belowLogScale));
    return ExitOk;
}

/** The head view of one layer: --layer (a model's; 1 for a plain session), --head N or all (default all). */
int exportLinesCommand(const QCommandLineParser& p, const Options& o)
{
    const QString out = figurePath(p, o.exportLines);
    const Source source = loadSource(p, o, sourceFile(p, o));
    auto grid = std::make_shared<render::AttentionGrid>(sourceGrid(source));
    render::HeadLinesView view;
    view.layer = source.model ? source.model->session.layer - 1 : 0;
    const QString head = p.value(o.head);
    if (!p.isSet(o.head) || head.compare(QLatin1String("all"), Qt::CaseInsensitive) == 0) {
        for (int h = 0; h < grid->heads; ++h)
            view.heads.push_back(h);
    } else {
        bool ok = false;
        const int n = head.toInt(&ok);
        if (!ok || n < 1 || n > grid->heads)
            throw Failure{ExitRefused, QStringLiteral("--head: expected a number from 1 to %1 or all, got \"%2\"")
                                           .arg(grid->heads)
                                           .arg(head)};
        view.heads.push_back(n - 1);
    }
    if (grid->blockSide > 1)
        throw Failure{ExitRefused, QStringLiteral("--export-lines: the head view draws up to %1 tokens; the source has %2")
                                       .arg(render::gridCellSide)
                                       .arg(grid->n())};
    const render::HeadLinesPainter painter(grid, view, exportPalette(render::HeadLinesStyle()));
    QSize size = painter.preferredSize();
    if (QFileInfo(out).suffix().toLower() == QLatin1String("png"))
        size *= 2;
    const render::ExportResult result = render::exportFigure(
        [&painter](QPainter* q, const QRectF& target) { painter.paint(q, target); }, Qt::white, painter.title(), out, size);
    if (!result.written)
        throw Failure{ExitFailed, result.error};
    return ExitOk;
}

/** The forward pass of an instrument's source, of any family; a source that is not a model is refused, naming the
 *  action. */
const core::ModelPass& instrumentModel(const Source& source, const QCommandLineOption& action)
{
    if (!source.model)
        throw Failure{ExitRefused, QStringLiteral("--%1: needs a model (--model DIR --text TEXT, or a model session)")
                                       .arg(action.names().constFirst())};
    return *source.model->pass;
}

/** The token an option names (core::singleToken), refused with the option's name. */
int tokenOption(const QCommandLineParser& p, const QCommandLineOption& option, const core::ModelPass& pass)
{
    std::string error;
    const auto id = core::singleToken(pass, p.value(option).toStdString(), error);
    if (!id)
        throw Failure{ExitRefused, QStringLiteral("--%1: %2").arg(option.names().constFirst(), QString::fromStdString(error))};
    return *id;
}

/** A number option within [low, high], or fallback when not given; refused, named, otherwise. */
double numberOption(const QCommandLineParser& p, const QCommandLineOption& option, double low, double high,
                    double fallback)
{
    if (!p.isSet(option))
        return fallback;
    bool ok = false;
    const double v = p.value(option).toDouble(&ok);
    if (!ok || !(v >= low && v <= high))
        throw Failure{ExitRefused, QStringLiteral("--%1: expected a number from %2 to %3, got \"%4\"")
                                       .arg(option.names().constFirst())
                                       .arg(low)
                                       .arg(high)
                                       .arg(p.value(option))};
    return v;
}

/** A whole-number option from low to high (numberOption's refusals). */
int countOption(const QCommandLineParser& p, const QCommandLineOption& option, int low, int high, int fallback)
{
    const double v = numberOption(p, option, low, high, fallback);
    if (v != std::floor(v))
        throw Failure{ExitRefused, QStringLiteral("--%1: expected a whole number, got \"%2\"")
                                       .arg(option.names().constFirst(), p.value(option))};
    return int(v);
}

/** Writes an instrument to OUT by its ending: its JSON, its CSV, or its figure (.png, .svg, .pdf). */
int writeInstrument(const QCommandLineParser& p, const QCommandLineOption& option, const nlohmann::ordered_json& json,
                    const std::string& csv, const std::function<render::GridFigure()>& figure)
{
    const QString out = p.value(option);
    const QString suffix = QFileInfo(out).suffix().toLower();
    QString why;
    if (suffix == QLatin1String("json") || suffix == QLatin1String("csv")) {
        const std::string text = suffix == QLatin1String("csv") ? csv : json.dump(1) + "\n";
        if (!render::replaceFile(out, QByteArray::fromStdString(text), &why))
            throw Failure{ExitFailed, why};
        return ExitOk;
    }
    if (!render::heatmapExportFormats().contains(suffix))
        throw Failure{ExitRefused, QStringLiteral("--%1: %2: the file must end in .json, .csv, .png, .svg or .pdf")
                                       .arg(option.names().constFirst(), out)};
    const render::GridFigurePainter painter(figure(), exportPalette(render::GridFigureStyle()));
    QSize size = painter.preferredSize();
    if (suffix == QLatin1String("png"))
        size *= 2;
    const render::ExportResult result = render::exportFigure(
        [&painter](QPainter* q, const QRectF& target) { painter.paint(q, target); }, Qt::white, painter.title(), out,
        size);
    if (!result.written)
        throw Failure{ExitFailed, result.error};
    return ExitOk;
}

/** The tokens of a model's text as the window's chips show them. */
QStringList shownTokens(const Source& source)
{
    QStringList tokens;
    for (const auto& t : source.session.model.tokens)
        tokens << QString::fromStdString(t);
    return tokens;
}

int exportLensCommand(const QCommandLineParser& p, const Options& o)
{
    const Source source = loadSource(p, o, sourceFile(p, o));
    const core::ModelPass& pass = instrumentModel(source, o.exportLens);
    const std::optional<int> target = p.isSet(o.target) ? std::optional<int>(tokenOption(p, o.target, pass)) : std::nullopt;
    const auto lens = core::logitLens(pass, target);
    return writeInstrument(p, o.exportLens, core::lensJson(pass, lens, target), core::lensCsv(pass, lens, target), [&] {
        return render::lensFigure(lens, shownTokens(source),
                                  [&pass](int id) { return QString::fromStdString(pass.readable(id)); });
    });
}

/** The Block view (core::blockView) of the shown layer at --position, drawn by the window's painter on white. */
int exportBlockCommand(const QCommandLineParser& p, const Options& o)
{
    const QString out = figurePath(p, o.exportBlock);
    const Source source = loadSource(p, o, sourceFile(p, o));
    const core::ModelPass& pass = instrumentModel(source, o.exportBlock);
    const int layer = shownLayer(p, o, *source.model) - 1;
    const int position = countOption(p, o.position, 1, pass.n(), pass.n()) - 1;
    const render::BlockPainter painter(std::make_shared<const core::BlockView>(core::blockView(pass, layer, position)),
                                       exportPalette(render::BlockStyle()));
    // laid out at one width, and a PNG drawn twice as large as that layout (the layout itself does not scale)
    const double width = std::max(painter.minimumWidth(), 760.0), height = painter.heightFor(width);
    QSize size(int(std::ceil(width)), int(std::ceil(height)));
    if (QFileInfo(out).suffix().toLower() == QLatin1String("png"))
        size *= 2;
    const render::ExportResult result = render::exportFigure(
        [&](QPainter* q, const QRectF& target) {
            q->save();
            q->translate(target.topLeft());
            q->scale(target.width() / width, target.width() / width);
            painter.paint(q, QRectF(0, 0, width, height));
            q->restore();
        },
        Qt::white, QStringLiteral("Block view"), out, size);
    if (!result.written)
        throw Failure{ExitFailed, result.error};
    return ExitOk;
}

int exportAttributionCommand(const QCommandLineParser& p, const Options& o)
{
    const Source source = loadSource(p, o, sourceFile(p, o));
    const core::ModelPass& pass = instrumentModel(source, o.exportAttribution);
    const int position = countOption(p, o.position, 1, pass.n(), pass.n()) - 1;
    int target = 0;
    if (p.isSet(o.target)) {
        target = tokenOption(p, o.target, pass);
    } else {
        const auto top = core::topCandidates(pass.logitsAt(position), 1);
        if (top.empty())
            throw Failure{ExitRefused, QStringLiteral("--export-attribution: the logits at position %1 are not finite; "
                                                      "give --target").arg(position + 1)};
        target = top.front().id;
    }
    const core::Attribution a = core::directLogitAttribution(pass, target, position);
    return writeInstrument(p, o.exportAttribution, core::attributionJson(a), core::attributionCsv(a), [&] {
        return render::attributionFigure(a, QString::fromStdString(pass.readable(target)));
    });
}

int exportPatchingCommand(const QCommandLineParser& p, const Options& o)
{
    const Source source = loadSource(p, o, sourceFile(p, o));
    const core::ModelPass& pass = instrumentModel(source, o.exportPatching);
    for (const QCommandLineOption* needed : {&o.corrupt, &o.answer, &o.wrong})
        if (!p.isSet(*needed))
            throw Failure{ExitRefused, QStringLiteral("--export-patching: give --corrupt TEXT, --answer TOKEN and "
                                                      "--wrong TOKEN (--%1 is missing)")
                                           .arg(needed->names().constFirst())};
    const int answer = tokenOption(p, o.answer, pass), wrong = tokenOption(p, o.wrong, pass);
    const std::string corruptText = p.value(o.corrupt).toStdString();
    if (core::firstInvalidUtf8(corruptText))
        throw Failure{ExitRefused, QStringLiteral("--corrupt: the text is not valid UTF-8")};
    std::string error;
    const auto patching = core::activationPatching(pass, pass.encode(corruptText), answer, wrong, error);
    if (!patching)
        throw Failure{ExitRefused, QStringLiteral("--corrupt: ") + QString::fromStdString(error)};
    return writeInstrument(p, o.exportPatching, core::patchingJson(*patching), core::patchingCsv(*patching),
                           [&] { return render::patchingFigure(*patching, shownTokens(source)); });
}

int generateCommand(const QCommandLineParser& p, const Options& o)
{
    const Source source = loadSource(p, o, sourceFile(p, o));
    const std::unique_ptr<core::ModelPass> copy = instrumentModel(source, o.generate).clone();
    core::ModelPass& pass = *copy;
    const int count = countOption(p, o.generate, 0, core::Limits::maxTokens, 0);
    core::Sampling sampling;
    sampling.temperature = numberOption(p, o.temperature, 0, 100, 0);
    sampling.topK = countOption(p, o.topK, 0, pass.shape().vocabSize, 0);
    sampling.topP = numberOption(p, o.topP, 0, 1, 1);
    if (sampling.topP <= 0)
        throw Failure{ExitRefused, QStringLiteral("--top-p: expected a number above 0 and at most 1")};
    sampling.seed = std::uint64_t(countOption(p, o.seed, 0, 2147483647, 0));
    std::string error;
    if (!core::generate(pass, count, sampling, error))
        throw Failure{ExitRefused, QStringLiteral("--generate: ") + QString::fromStdString(error)};
    nlohmann::ordered_json out;
    out["text"] = core::decodedText(pass, pass.tokens());
    out["token_ids"] = pass.tokens();
    printOut(QString::fromStdString(out.dump(1) + "\n"));
    return ExitOk;
}

/** --download ORG/NAME[@REVISION]: the Hub's files into the cache, progress on standard error, the snapshot folder
 *  on standard output. A refusal exits 2; no network, a cut or a checksum mismatch 1 (SPEC §7). */
int downloadCommand(const QCommandLineParser& p, const Options& o)
{
    const QString given = p.value(o.download);
    const auto id = core::parseHubId(given.toStdString());
    if (!id)
        throw Failure{ExitRefused, QStringLiteral("--download: expected a Hub repository id ORG/NAME[@REVISION] (such as "
                                                  "openai-community/gpt2), got \"%1\"")
                                       .arg(QString::fromStdString(core::messageExcerpt(given.toStdString())))};
    hub::HubDownloader downloader(hub::HubSettings::fromEnvironment());
    // On a terminal one line redrawn a few times a second; in a log, a line every few seconds.
    const bool terminal = isatty(STDERR_FILENO) != 0;
    QElapsedTimer shown;
    QObject::connect(&downloader, &hub::HubDownloader::progressed, [&](const hub::Progress& progress) {
        if (shown.isValid() && shown.elapsed() < (terminal ? 250 : 5000) && progress.done < progress.total)
            return;
        shown.start();
        const double left = progress.secondsLeft();
        const QString line = QStringLiteral("%1  %2 of %3 MB  %4 MB/s  %5")
                                 .arg(progress.file)
                                 .arg(double(progress.done) / 1e6, 0, 'f', 1)
                                 .arg(double(progress.total) / 1e6, 0, 'f', 1)
                                 .arg(progress.bytesPerSecond / 1e6, 0, 'f', 1)
                                 .arg(left < 0 ? QStringLiteral("--:-- left")
                                               : QStringLiteral("%1:%2 left")
                                                     .arg(qint64(left) / 60)
                                                     .arg(qint64(left) % 60, 2, 10, QLatin1Char('0')));
        const QByteArray bytes = (terminal ? QStringLiteral("\r%1\x1b[K").arg(line) : line + QLatin1Char('\n')).toUtf8();
        std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stderr);
    });
    const hub::DownloadResult result = downloader.download(*id);
    if (terminal && shown.isValid())
        std::fputc('\n', stderr);
    switch (result.outcome) {
    case hub::Outcome::Done:
        printOut(result.snapshot + QLatin1Char('\n'));
        return ExitOk;
    case hub::Outcome::Refused:
        throw Failure{ExitRefused, QStringLiteral("--download: ") + result.message};
    case hub::Outcome::Failed:
    case hub::Outcome::Cancelled:
        break;
    }
    throw Failure{ExitFailed, QStringLiteral("--download: ") + result.message};
}

/** One action of the command line: its option, the figure options it reads, and what it does. */
struct Action {
    const QCommandLineOption& option;
    QList<const QCommandLineOption*> reads;  ///< of Options::figureOptions()
    std::function<int()> run;
    bool takesSource = true;  ///< else a FILE given on its own is refused
};

/** The actions, the one list of them: --help lists them in this order (README's table too), when several are
 *  given the first of them runs, and every one of them needs no display. */
QList<Action> commandActions(const QCommandLineParser& p, const Options& o)
{
    QList<const QCommandLineOption*> heatmapOptions = o.figureOptions();
    heatmapOptions.removeAll(&o.query);
    return {
        {o.compute, {}, [&] { return computeCommand(p, o); }},
        {o.exportHeatmap, heatmapOptions, [&] { return exportHeatmapCommand(p, o); }},
        {o.exportReport, {&o.colourRange, &o.head, &o.query}, [&] { return exportReportCommand(p, o); }},
        {o.exportHandout, {&o.colourRange},
         [&] { return exportTraceCommand(p, o, o.exportHandout, exports::handoutWriter()); }},
        {o.exportCode, {}, [&] { return exportCodeCommand(p, o); }},
        {o.exportSlides, {&o.head, &o.query}, [&] { return exportSlidesCommand(p, o); }},
        {o.exportSteps, {}, [&] { return exportStepsCommand(p, o); }},
        {o.exportOverview, {&o.colourRange, &o.colormap}, [&] { return exportOverviewCommand(p, o); }},
        {o.exportLines, {&o.head}, [&] { return exportLinesCommand(p, o); }},
        {o.exportLens, {&o.target}, [&] { return exportLensCommand(p, o); }},
        {o.exportAttribution, {&o.target, &o.position}, [&] { return exportAttributionCommand(p, o); }},
        {o.exportBlock, {&o.position}, [&] { return exportBlockCommand(p, o); }},
        {o.exportPatching, {&o.corrupt, &o.answer, &o.wrong}, [&] { return exportPatchingCommand(p, o); }},
        {o.generate, {&o.temperature, &o.topK, &o.topP, &o.seed}, [&] { return generateCommand(p, o); }},
        {o.download, {}, [&] { return downloadCommand(p, o); }, false},
        {o.listPresets, {}, [] {
             QString text;
             for (const auto& info : core::presetList())
                 text += QString::fromStdString(info.name) + QLatin1Char('\t')
                     + QString::fromStdString(info.description) + QLatin1Char('\n');
             printOut(text);
             return int(ExitOk);
         },
         false},
    };
}

/** What the window opens with when no action is given: a file, a model folder (the window loads it on a worker,
 *  with its progress bar; without --text, with its sample text), or a preset or typed text as an action reads
 *  them. What an action would refuse of these arguments is refused here too. */
WindowSource windowSource(const QCommandLineParser& p, const Options& o)
{
    WindowSource window;
    const QString file = sourceFile(p, o);
    if (p.isSet(o.model)) {
        checkOneSource(p, o, file);
        window.modelFolder = QString::fromStdString(modelArgument(p.value(o.model)));
        std::string notCached;
        if (const auto snapshot = core::cachedSnapshotFor(window.modelFolder.toStdString(), window.modelFolder.toStdString(), notCached))
            window.modelFolder = QString::fromStdString(*snapshot);
        else if (!notCached.empty())
            throw Failure{ExitRefused, QStringLiteral("--model: ") + QString::fromStdString(notCached)};
        window.modelText = p.value(o.text);
        bool ok = true;
        if (p.isSet(o.layer))
            window.modelLayer = p.value(o.layer).toInt(&ok);
        if (!ok || window.modelLayer < 1)
            throw Failure{ExitRefused,
                          QStringLiteral("--layer: expected a number from 1, got \"%1\"").arg(p.value(o.layer))};
    } else if (!file.isEmpty() || p.isSet(o.session)) {
        checkOneSource(p, o, file);
        if (p.isSet(o.layer))
            throw Failure{ExitRefused, QStringLiteral("--layer: the window shows a session file at its own layer; a "
                                                      "layer is chosen here only with --model")};
        window.file = file.isEmpty() ? p.value(o.session) : file;
    } else if (p.isSet(o.preset) || p.isSet(o.tokens) || p.isSet(o.text) || p.isSet(o.layer)) {
        window.session = loadSource(p, o, file).session;
    }
    return window;
}

/** The parser with every option, the actions first in commandActions' order. */
struct CommandLine {
    Options o;
    QCommandLineParser p;
    QList<Action> actions = commandActions(p, o);

    CommandLine()
    {
        p.setApplicationDescription(
            QStringLiteral("Attention Explorer: see and touch every number of self-attention."));
        p.addHelpOption();
        p.addVersionOption();
        for (const Action& action : actions)
            p.addOption(action.option);
        p.addOptions(o.others());
        p.addPositionalArgument(QStringLiteral("FILE"),
                                QStringLiteral("A session file to open in the window; an action takes it as its "
                                               "source, as --session FILE."),
                                QStringLiteral("[FILE]"));
    }
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    /** The arguments as the parser is to read them. An option that takes a value but is followed by another option
     *  has none (the parser would take that option for its value): --compute then gets an empty FILE, a source
     *  standing in its place (SPEC §5), and any other is refused, named. Nothing when refused; error says why. */
    std::optional<QStringList> withValues(QStringList arguments, QString* error) const
    {
        QList<QCommandLineOption> options = o.others();
        for (const Action& action : actions)
            options << action.option;
        const auto find = [&options](const QString& name) -> const QCommandLineOption* {
            for (const QCommandLineOption& option : options)
                if (option.names().contains(name))
                    return &option;
            return nullptr;
        };
        static const QStringList builtIn = {QStringLiteral("h"), QStringLiteral("?"), QStringLiteral("help"),
                                            QStringLiteral("help-all"), QStringLiteral("v"), QStringLiteral("version")};
        const auto isOption = [&](const QString& a) {
            const QString name = a.startsWith(QLatin1String("--")) ? a.mid(2).section(QLatin1Char('='), 0, 0)
                : a.size() == 2 && a.startsWith(QLatin1Char('-')) ? a.mid(1)
                                                                  : QString();
            return !name.isEmpty() && (builtIn.contains(name) || find(name));
        };
        for (qsizetype i = 1; i < arguments.size(); ++i) {
            const QString& a = arguments[i];
            if (a == QLatin1String("--"))
                break;  // the rest are positional
            const QCommandLineOption* option =
                a.startsWith(QLatin1String("--")) && !a.contains(QLatin1Char('=')) ? find(a.mid(2)) : nullptr;
            if (!option || option->valueName().isEmpty())
                continue;
            if (i + 1 < arguments.size() && !isOption(arguments[i + 1])) {
                ++i;  // its value
                continue;
            }
            if (option->names() == o.compute.names()) {
                arguments.insert(++i, QString());
                continue;
            }
            if (i + 1 < arguments.size()) {
                *error = QStringLiteral("%1: missing its %2 (%3 after it is an option)")
                             .arg(a, option->valueName(), arguments[i + 1]);
                return std::nullopt;
            }
        }
        return arguments;
    }

    /** Parses arguments; false with a message (that names what is wrong) in error when they are refused. */
    bool parse(const QStringList& arguments, QString* error)
    {
        const auto given = withValues(arguments, error);
        if (!given)
            return false;
        if (p.parse(*given))
            return true;
        *error = p.errorText();
        return false;
    }

    /** --help, --help-all or --version. */
    bool asksHelpOrVersion() const
    {
        return p.isSet(QStringLiteral("help")) || p.isSet(QStringLiteral("help-all"))
            || p.isSet(QStringLiteral("version"));
    }
};

/** The action to run, the first given of actions (none: the window). A note on standard error for every further
 *  action given (one runs), and for every figure option the chosen action does not read (it still runs): a script
 *  that passes --colormap to --export-code learns that nothing was coloured. */
const Action* chooseAction(const QCommandLineParser& p, const Options& o, const QList<Action>& actions)
{
    const Action* chosen = nullptr;
    for (const Action& action : actions) {
        if (!p.isSet(action.option))
            continue;
        const QString name = QStringLiteral("--") + action.option.names().constFirst();
        if (chosen) {
            printError(QStringLiteral("note: %1 is not done: one action at a time, and %2 runs")
                           .arg(name, QStringLiteral("--") + chosen->option.names().constFirst()));
            continue;
        }
        chosen = &action;
    }
    if (!chosen)
        return nullptr;  // the window: it takes none of them
    for (const QCommandLineOption* option : o.figureOptions()) {
        if (p.isSet(*option) && !chosen->reads.contains(option))
            printError(QStringLiteral("note: --%1 does not apply to --%2; ignored")
                           .arg(option->names().constFirst(), chosen->option.names().constFirst()));
    }
    return chosen;
}

}  // namespace

QString languageArgument(const QStringList& arguments)
{
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString& a = arguments[i];
        if (a == QLatin1String("--lang") && i + 1 < arguments.size())
            return arguments[i + 1];
        if (a.startsWith(QLatin1String("--lang=")))
            return a.mid(7);
    }
    return {};
}

bool isHeadlessRequest(const QStringList& arguments)
{
    CommandLine c;
    QString error;
    if (!c.parse(arguments, &error) || c.asksHelpOrVersion())
        return true;  // the refusal, the help or the version: each is a message, no window
    return std::any_of(c.actions.cbegin(), c.actions.cend(),
                       [&c](const Action& action) { return c.p.isSet(action.option); });
}

QStringList headlessCalls()
{
    CommandLine c;
    QStringList calls;
    for (const Action& action : c.actions)
        calls << QStringLiteral("--") + action.option.names().constFirst()
                + (action.option.valueName().isEmpty() ? QString() : QLatin1Char(' ') + action.option.valueName());
    return calls;
}

int runCommandLine(const QStringList& givenArguments, WindowSource* window)
{
    CommandLine c;
    const Options& o = c.o;
    QCommandLineParser& p = c.p;
    QString error;
    if (!c.parse(givenArguments, &error)) {
        printError(error + QStringLiteral(" (see --help)"));
        return ExitRefused;
    }
    if (p.isSet(QStringLiteral("help")) || p.isSet(QStringLiteral("help-all"))) {
        printOut(p.helpText());
        return ExitOk;
    }
    if (p.isSet(QStringLiteral("version"))) {
        printOut(QCoreApplication::applicationName() + QLatin1Char(' ') + QCoreApplication::applicationVersion()
                 + QLatin1Char('\n'));
        return ExitOk;
    }

    if (p.isSet(o.lang) && !languages.contains(p.value(o.lang))) {
        printError(QStringLiteral("--lang: expected %1, got \"%2\"")
                       .arg(languages.join(QStringLiteral(" or ")), p.value(o.lang)));
        return ExitRefused;
    }

    const Action* chosen = chooseAction(p, o, c.actions);
    try {
        if (chosen && !chosen->takesSource && !p.positionalArguments().isEmpty())
            throw Failure{ExitRefused, QStringLiteral("%1: --%2 reads no file")
                                           .arg(p.positionalArguments().join(QStringLiteral(", ")),
                                                chosen->option.names().constFirst())};
        if (chosen)
            return chosen->run();
        if (!window)
            throw Failure{ExitRefused, QStringLiteral("no action given (see --help)")};
        *window = windowSource(p, o);
        return -1;
    } catch (const Failure& f) {
        printError(f.message);
        return f.status;
    } catch (const std::bad_alloc&) {
        const QString input = inputName(p, o);
        printError(input.isEmpty() ? QStringLiteral("not enough memory")
                                   : input + QStringLiteral(": not enough memory to read it"));
        return ExitFailed;
    } catch (const std::exception& e) {
        const QString input = inputName(p, o);
        printError((input.isEmpty() ? QString() : input + QStringLiteral(": "))
                   + QString::fromStdString(core::messageExcerpt(e.what(), 200)));
        return ExitFailed;
    }
}

}  // namespace app
