#include "ui/views/model/modelloader.h"

#include "ui/document/background.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QProgressDialog>

#include <atomic>
#include <exception>
#include <new>
#include <memory>

namespace ui {

namespace {

struct LoadResult {
    std::optional<LoadedModel> loaded;
    std::string error;
};

}  // namespace

std::optional<LoadedModel> ModelLoader::load(const core::ModelSession& session, const QString& sessionPath,
                                             const core::ModelSessionNames& names, QWidget* parent, QString* error,
                                             Outcome* outcome)
{
    if (outcome)
        *outcome = {};
    // Cancel sets the flag; the worker asks it between its steps and stops there.
    auto stop = std::make_shared<std::atomic<bool>>(false);
    auto future = runInBackground([session, path = sessionPath.toStdString(), names, stop] {
        auto result = std::make_shared<LoadResult>();
        // No exception leaves the worker: the caller shows the refusal, and the document stays as it was.
        const std::string folder = core::modelFolder(session, path);
        try {
            result->loaded = loadModelSession(session, path, names, result->error,
                                              [stop] { return stop->load(std::memory_order_relaxed); });
        } catch (const std::bad_alloc&) {
            result->loaded.reset();
            result->error = folder + ": not enough memory to open this model";
        } catch (const std::exception& e) {
            result->loaded.reset();
            result->error = folder + ": " + e.what();
        }
        return result;
    });
    QFutureWatcher<std::shared_ptr<LoadResult>> watcher;
    QEventLoop loop;
    QObject::connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
    watcher.setFuture(future);

    QProgressDialog progress(parent);
    progress.setObjectName(QStringLiteral("modelProgress"));
    progress.setWindowTitle(tr("Opening a Model"));
    progress.setLabelText(tr("Loading %1 and running its forward pass…")
                              .arg(modelName(QString::fromStdString(core::modelFolder(session, sessionPath.toStdString())))));
    progress.setRange(0, 0);  // the checkpoint's reader says nothing of how far it is: a busy bar
    progress.setMinimumDuration(300);
    progress.setWindowModality(Qt::WindowModal);
    bool wasCancelled = false;
    QObject::connect(&progress, &QProgressDialog::canceled, &loop, [&] {
        wasCancelled = true;
        stop->store(true, std::memory_order_relaxed);
        loop.quit();
    });
    if (!future.isFinished())
        loop.exec();
    progress.reset();
    if (wasCancelled) {
        // The worker stops at its next step: wait for it, so that a load cancelled to open another does not
        // keep its checkpoint meanwhile. The window stays painted but takes no input until then.
        if (!future.isFinished())
            loop.exec(QEventLoop::ExcludeUserInputEvents);
        future.waitForFinished();
        if (outcome) {
            outcome->cancelled = true;
            outcome->workerStopped = future.result()->error == core::stoppedMessage;
        }
        if (error)
            error->clear();
        return std::nullopt;
    }
    std::shared_ptr<LoadResult> result = future.result();
    if (!result->loaded) {
        if (error)
            *error = QString::fromStdString(result->error);
        return std::nullopt;
    }
    return std::move(result->loaded);
}

QStringList ModelLoader::folderProblems(const QString& folder)
{
    QStringList problems;
    const QDir dir(folder);
    if (!QFileInfo(folder).isDir())
        return {tr("%1 is not a folder.").arg(QDir::toNativeSeparators(folder))};
    if (!dir.exists(QStringLiteral("config.json")))
        problems << tr("config.json is missing (the model's architecture and sizes).");
    if (!dir.exists(QStringLiteral("model.safetensors")) && !dir.exists(QStringLiteral("model.safetensors.index.json")))
        problems << (dir.exists(QStringLiteral("pytorch_model.bin"))
                         ? tr("model.safetensors is missing; pytorch_model.bin is a pickle this program "
                                       "does not read (convert it to safetensors).")
                         : tr("model.safetensors is missing (the weights)."));
    const bool vocab = dir.exists(QStringLiteral("vocab.json")), merges = dir.exists(QStringLiteral("merges.txt"));
    if (!dir.exists(QStringLiteral("tokenizer.json")) && !(vocab && merges))
        problems << (vocab ? tr("merges.txt is missing (vocab.json needs it), and there is no tokenizer.json.")
                     : merges ? tr("vocab.json is missing (merges.txt needs it), and there is no tokenizer.json.")
                              : tr("The tokenizer is missing: vocab.json with merges.txt, or tokenizer.json."));
    return problems;
}

QString ModelLoader::refusal(const QString& folder, const QString& error)
{
    QString text = tr("%1 cannot be opened as a model.").arg(QDir::toNativeSeparators(folder));
    const QStringList problems = folderProblems(folder);
    for (const QString& p : problems)
        text += QStringLiteral("\n• ") + p;
    if (!error.isEmpty())
        text += QStringLiteral("\n\n") + error;
    return text;
}

}  // namespace ui
