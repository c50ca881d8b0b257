#include "commandline.h"

#include "core/attention.h"
#include "core/presets.h"
#include "core/sessionfile.h"
#include "core/tokenizer.h"
#include "core/tracejson.h"
#include "ui/document/stepfigure.h"
#include "ui/render/colormap.h"
#include "ui/export/exportfiles.h"
#include "ui/export/handoutwriter.h"
#include "ui/export/reportwriter.h"
#include "ui/render/heatmapexport.h"
#include "ui/render/slidepainter.h"
#include "ui/views/teachingslides.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>

#include <cstdio>
#include <optional>

namespace app {

namespace {

const QStringList headlessFlags = {
    QStringLiteral("--compute"),      QStringLiteral("--export-heatmap"), QStringLiteral("--list-presets"),
    QStringLiteral("--help"),         QStringLiteral("-h"),               QStringLiteral("--version"),
    QStringLiteral("-v"),             QStringLiteral("--help-all"),       QStringLiteral("--export-report"),
    QStringLiteral("--export-code"),  QStringLiteral("--export-handout"), QStringLiteral("--export-slides"),
};

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
    QCommandLineOption session{QStringLiteral("session"), QStringLiteral("Source: a session file."),
                               QStringLiteral("FILE")};
    QCommandLineOption preset{QStringLiteral("preset"), QStringLiteral("Source: a built-in preset."),
                              QStringLiteral("NAME")};
    QCommandLineOption tokens{QStringLiteral("tokens"),
                              QStringLiteral("Source: typed text, with the default embeddings and weights."),
                              QStringLiteral("TEXT")};
    QCommandLineOption step{QStringLiteral("step"),
                            QStringLiteral("Heatmap step: scores, scaled_scores or weights (default weights)."),
                            QStringLiteral("STEP"), QStringLiteral("weights")};
    QCommandLineOption head{QStringLiteral("head"), QStringLiteral("Heatmap head, from 1 (default 1)."),
                            QStringLiteral("N"), QStringLiteral("1")};
    QCommandLineOption size{QStringLiteral("size"),
                            QStringLiteral("PNG size in pixels, e.g. 1200x1000 (default chosen from n)."),
                            QStringLiteral("WIDTHxHEIGHT")};
    QCommandLineOption colormap{QStringLiteral("colormap"),
                                QStringLiteral("Colour map: %1.").arg(render::colormapNames().join(QStringLiteral(", "))),
                                QStringLiteral("NAME")};
    QCommandLineOption annotate{QStringLiteral("annotate"), QStringLiteral("Print each cell's value in it.")};
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
    QCommandLineOption exportSlides{QStringLiteral("export-slides"),
                                    QStringLiteral("Write the teaching slides of the source to OUT (.pdf), one per page."),
                                    QStringLiteral("OUT")};
    QCommandLineOption lang{QStringLiteral("lang"),
                            QStringLiteral("Language of the interface: %1.").arg(languages.join(QStringLiteral(" or "))),
                            QStringLiteral("LANGUAGE")};

    QList<QCommandLineOption> all() const
    {
        return {compute, exportHeatmap, listPresets, session,      preset,        tokens,     step,
                head,    size,          colormap,    annotate,     exportReport,  exportHandout, exportCode,
                exportSlides, lang};
    }
};

/** Thrown inside this file only, caught in runCommandLine. */
struct Failure {
    int status;
    QString message;
};

core::Session loadSource(const QCommandLineParser& p, const Options& o)
{
    const int given = int(p.isSet(o.session)) + int(p.isSet(o.preset)) + int(p.isSet(o.tokens));
    if (given > 1)
        throw Failure{ExitRefused, QStringLiteral("give one source: --session, --preset or --tokens")};
    if (p.isSet(o.session)) {
        std::string error;
        auto s = core::readSessionFile(p.value(o.session).toStdString(), error);
        if (!s)
            throw Failure{ExitRefused, QString::fromStdString(error)};
        return *s;
    }
    if (p.isSet(o.tokens)) {
        const auto tokens = core::tokenize(p.value(o.tokens).toStdString());
        if (tokens.empty())
            throw Failure{ExitRefused, QStringLiteral("--tokens: the text has no tokens")};
        core::Session s;
        s.model = core::modelForTokens(tokens);
        if (auto error = core::validate(s.model))
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
    return *s;
}

int computeCommand(const QString& file)
{
    std::string error;
    auto session = core::readSessionFile(file.toStdString(), error);
    if (!session)
        throw Failure{ExitRefused, QString::fromStdString(error)};
    const core::Trace trace = core::compute(session->model);
    const std::string json = core::traceToJsonText(trace) + "\n";
    if (std::fwrite(json.data(), 1, json.size(), stdout) != json.size() || std::fflush(stdout) != 0)
        throw Failure{ExitFailed, QStringLiteral("could not write to standard output")};
    return ExitOk;
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
    style.colormap = render::defaultColormap(*step);
    if (p.isSet(o.colormap)) {
        const auto id = render::colormapFromName(p.value(o.colormap));
        if (!id)
            throw Failure{ExitRefused, QStringLiteral("--colormap: expected one of %1, got \"%2\"")
                                           .arg(render::colormapNames().join(QStringLiteral(", ")), p.value(o.colormap))};
        style.colormap = *id;
    }
    style.annotate = p.isSet(o.annotate);

    const core::Session session = loadSource(p, o);
    bool ok = false;
    const int head = p.value(o.head).toInt(&ok);
    if (!ok || head < 1 || head > session.model.heads())
        throw Failure{ExitRefused, QStringLiteral("--head: expected a number from 1 to %1, got \"%2\"")
                                       .arg(session.model.heads())
                                       .arg(p.value(o.head))};

    const core::Trace trace = core::compute(session.model);
    const render::HeatmapData data = ui::heatmapData(trace, *step, head - 1);
    // A PNG without --size is drawn at twice the on-screen size: sharp on slides and in print.
    if (size.isEmpty() && suffix == QLatin1String("png"))
        size = render::HeatmapRenderer(data, style).preferredSize() * 2;
    QString error;
    if (!render::exportHeatmap(data, style, out, size, &error))
        throw Failure{ExitFailed, error};
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
    return title != session.extras.end() && title->is_string() ? QString::fromStdString(title->get<std::string>())
                                                                : QString();
}

/** Writes a PDF of the source's trace to the path given with option (the report or the handout). */
using TraceWriter = bool (*)(const core::Trace&, const QString&, const QString&, QString*);

int exportTraceCommand(const QCommandLineParser& p, const Options& o, const QCommandLineOption& option, TraceWriter write)
{
    const QString out = outputPath(p, option, QStringLiteral("pdf"));
    const core::Session session = loadSource(p, o);
    const core::Trace trace = core::compute(session.model);
    QString error;
    if (!write(trace, sessionTitle(session), out, &error))
        throw Failure{ExitFailed, error};
    return ExitOk;
}

int exportCodeCommand(const QCommandLineParser& p, const Options& o)
{
    const QString out = outputPath(p, o.exportCode, QStringLiteral("py"));
    const core::Session session = loadSource(p, o);
    QString error;
    if (!exports::writePytorchFile(session.model, sessionTitle(session), out, &error))
        throw Failure{ExitFailed, error};
    return ExitOk;
}

/** The slides of the teaching mode for the first head, walking the first query. */
int exportSlidesCommand(const QCommandLineParser& p, const Options& o)
{
    const QString out = outputPath(p, o.exportSlides, QStringLiteral("pdf"));
    const core::Session session = loadSource(p, o);
    const core::Trace trace = core::compute(session.model);
    QString error;
    if (!render::writeSlideDeck(ui::buildSlides(trace, 0, 0), sessionTitle(session), out, &error))
        throw Failure{ExitFailed, error};
    return ExitOk;
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
    for (const QString& a : arguments.mid(1)) {
        const QString flag = a.section(QLatin1Char('='), 0, 0);
        if (headlessFlags.contains(flag))
            return true;
    }
    return false;
}

int runCommandLine(const QStringList& arguments, QString* windowFile)
{
    Options o;
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Attention Explorer: see and touch every number of self-attention."));
    p.addHelpOption();
    p.addVersionOption();
    p.addOptions(o.all());
    p.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A session file to open in the window."),
                            QStringLiteral("[FILE]"));

    if (!p.parse(arguments)) {
        printError(p.errorText() + QStringLiteral(" (see --help)"));
        return ExitRefused;
    }
    if (p.isSet(QStringLiteral("help"))) {
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

    try {
        if (p.isSet(o.listPresets)) {
            QString text;
            for (const auto& info : core::presetList())
                text += QString::fromStdString(info.name) + QLatin1Char('\t') + QString::fromStdString(info.description)
                    + QLatin1Char('\n');
            printOut(text);
            return ExitOk;
        }
        if (p.isSet(o.compute))
            return computeCommand(p.value(o.compute));
        if (p.isSet(o.exportHeatmap))
            return exportHeatmapCommand(p, o);
        if (p.isSet(o.exportReport))
            return exportTraceCommand(p, o, o.exportReport, &exports::writeReport);
        if (p.isSet(o.exportHandout))
            return exportTraceCommand(p, o, o.exportHandout, &exports::writeHandout);
        if (p.isSet(o.exportCode))
            return exportCodeCommand(p, o);
        if (p.isSet(o.exportSlides))
            return exportSlidesCommand(p, o);
    } catch (const Failure& f) {
        printError(f.message);
        return f.status;
    } catch (const std::bad_alloc&) {
        printError(QStringLiteral("not enough memory"));
        return ExitFailed;
    } catch (const std::exception& e) {
        printError(QString::fromUtf8(e.what()));
        return ExitRefused;
    }

    const QStringList files = p.positionalArguments();
    if (files.size() > 1) {
        printError(QStringLiteral("give at most one file to open"));
        return ExitRefused;
    }
    if (windowFile)
        *windowFile = files.value(0);
    return -1;
}

}  // namespace app
