#include "ui/views/shell/sessioncontroller.h"

#include "ui/render/stepfigure.h"

#include "core/session/builtinmodel.h"
#include "core/session/hubcache.h"
#include "core/session/modelsession.h"
#include "core/session/presets.h"
#include "ui/hub/downloaddialog.h"
#include "ui/hub/openmodeldialog.h"
#include "ui/views/model/modelloader.h"
#include "ui/views/teaching/presetnames.h"
#include "ui/document/autosave.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "core/attention/trace.h"
#include "ui/i18n/language.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>

namespace ui {

namespace {

constexpr int maxRecentFiles = 8;

/** Puts path first in the list of recent paths kept under key, at most maxRecentFiles of them. */
void remember(const QString& key, const QString& path)
{
    if (path.isEmpty())
        return;
    QSettings settings;
    QStringList paths = settings.value(key).toStringList();
    paths.removeAll(path);
    paths.prepend(path);
    while (paths.size() > maxRecentFiles)
        paths.removeLast();
    settings.setValue(key, paths);
}

/** Takes path out of the list of recent paths kept under key. */
void forget(const QString& key, const QString& path)
{
    QSettings settings;
    QStringList paths = settings.value(key).toStringList();
    if (paths.removeAll(path) > 0)
        settings.setValue(key, paths);
}

QString sessionFilter()
{
    return SessionController::tr("Attention Explorer sessions (*.json);;All files (*)");
}

}  // namespace

SessionController::SessionController(Document* document, ViewState* view, QMainWindow* window,
                                     std::function<QWidget*()> dialogParent)
    : QObject(window), m_document(document), m_view(view), m_window(window), m_dialogParent(std::move(dialogParent)),
      m_autosave(new Autosave(document, Autosave::defaultFolder(), Autosave::defaultIntervalMs, this))
{
    connect(m_document, &Document::modifiedChanged, this, [this](bool modified) {
        if (!modified && m_recovered) {
            m_recovered = false;  // saved, or replaced by another session
            emit titleChanged();
        }
    });
    connect(m_autosave, &Autosave::failed, this, [this](const QString& message) {
        showStatus(message, 0);
        showError(tr("Autosave failed"), message);
    });
}

SessionController::~SessionController()
{
    // The autosave looks at the document when it goes, so it goes while the document is still there.
    delete m_autosave;
}

bool SessionController::openFile(const QString& path, QString* error)
{
    auto read = readSessionFile(path, error);
    if (!read)
        return false;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (auto* model = std::get_if<core::ModelSession>(&*read)) {
        // A model session: its checkpoint loads on a worker, the window stays live.
        restoreViewWhenComputed(model->extras);
        if (!openModelSession(*model, absolute, error)) {
            disconnect(m_restoreView);
            return false;
        }
    } else {
        core::Session& session = std::get<core::Session>(*read);
        restoreViewWhenComputed(session.extras);
        m_document->loadSession(session, absolute);
    }
    addRecentFile(m_document->filePath());
    showStatus(tr("Opened %1").arg(QFileInfo(path).fileName()));
    return true;
}

bool SessionController::openModelSession(const core::ModelSession& session, const QString& sessionPath,
                                         QString* error)
{
    // A session file's messages name its keys; a folder opened as it is has none, so the window names its parts.
    const core::ModelSessionNames names = sessionPath.isEmpty() ? windowModelNames() : core::ModelSessionNames();
    auto loaded = ModelLoader::load(session, sessionPath, names, m_dialogParent(), error);
    if (!loaded)
        return false;  // refused (error says why) or cancelled (error empty)
    m_document->loadModel(std::move(*loaded), sessionPath);
    addRecentModel(m_document->modelSession() ? m_document->modelSession()->folder() : QString());
    return true;
}

QString SessionController::sampleText()
{
    return QStringLiteral("The cat sat on the mat because it was");
}

bool SessionController::openModelFolder(const QString& folder, QString* error, const QString& text, int layer)
{
    core::ModelSession session;
    // A repository id that names no folder is looked up in the Hugging Face cache, and saved as that id; "builtin" is
    // the model in the box, wherever it was installed (SPEC §7).
    const bool hubId = !QFileInfo::exists(folder) && core::parseHubId(folder.toStdString());
    const bool builtin = !QFileInfo::exists(folder) && core::isBuiltinModel(folder.toStdString());
    session.modelPath = hubId || builtin ? folder.toStdString() : QDir(folder).absolutePath().toStdString();
    session.layer = layer;
    session.text = (text.isEmpty() ? sampleText() : text).toStdString();
    QString why;
    if (!openModelSession(session, QString(), &why)) {
        if (error) {
            // An id the cache does not hold has no folder to list the problems of: the reason says what to do.
            const QString resolved = QString::fromStdString(core::modelFolder(session, {}));
            *error = why.isEmpty() || (hubId && !QFileInfo(resolved).isDir()) ? why : ModelLoader::refusal(resolved, why);
        }
        return false;
    }
    showStatus(tr("Opened the model %1").arg(hubId || builtin ? folder : modelName(folder)));
    return true;
}

void SessionController::openModelDialog()
{
    if (!maybeSave())
        return;
    QSettings settings;
    const QString start = settings.value(QStringLiteral("lastModelFolder"), QDir::homePath()).toString();
    hub::OpenModelDialog dialog(hub::HubSettings::fromEnvironment(), start, m_dialogParent());
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (!dialog.chosenFolder().isEmpty())
        settings.setValue(QStringLiteral("lastModelFolder"), QFileInfo(dialog.chosenFolder()).absolutePath());
    openModelInteractively(dialog.chosenFolder().isEmpty() ? dialog.chosenId() : dialog.chosenFolder());
}

void SessionController::downloadModelDialog()
{
    if (!maybeSave())
        return;
    hub::DownloadDialog dialog(hub::HubSettings::fromEnvironment(), m_dialogParent());
    QString id;
    connect(&dialog, &hub::DownloadDialog::downloaded, this, [&id](const QString& downloaded) { id = downloaded; });
    if (dialog.exec() == QDialog::Accepted && !id.isEmpty())
        openModelInteractively(id);
}

void SessionController::openBuiltinModel()
{
    choosePreset(QString::fromLatin1(core::builtinModelPreset));
}

void SessionController::openModelInteractively(const QString& folder)
{
    openModelFolderOrSay(folder);
}

bool SessionController::openModelFolderOrSay(const QString& folder, QString* error, const QString& text, int layer)
{
    QString why;
    if (openModelFolder(folder, &why, text, layer))
        return true;
    if (!why.isEmpty())
        showError(tr("Cannot open the model"), why);
    if (error)
        *error = why;
    return false;
}

QStringList SessionController::recentModels() const
{
    return QSettings().value(QStringLiteral("recentModels")).toStringList();
}

void SessionController::addRecentModel(const QString& folder)
{
    remember(QStringLiteral("recentModels"), folder);
    updateRecentModelsMenu();
}

void SessionController::setRecentModelsMenu(QMenu* menu)
{
    m_recentModelsMenu = menu;
    connect(menu, &QMenu::aboutToShow, this, &SessionController::updateRecentModelsMenu);
    i18n::onLanguageChange(this, [this] { updateRecentModelsMenu(); });
}

void SessionController::updateRecentModelsMenu()
{
    fillRecentMenu(
        m_recentModelsMenu, QStringLiteral("recentModels"), [](const QString& folder) { return modelName(folder); },
        [this](const QString& folder) {
            if (maybeSave())
                openModelInteractively(folder);
        },
        tr("No recent models"), false);
}

nlohmann::json SessionController::savedView() const
{
    return {{"view", {{"head", m_view->head() + 1}, {"query", m_view->selectedQuery() + 1}}}};
}

void SessionController::restoreViewWhenComputed(nlohmann::json& extras)
{
    disconnect(m_restoreView);
    if (!extras.is_object() || !extras.contains("view"))
        return;
    // The view is the window's, not the session's: the document keeps the rest of the extras.
    const nlohmann::json view = extras["view"];
    extras.erase("view");
    if (!view.is_object())
        return;
    const auto index = [&view](const char* key) -> std::int64_t {
        const auto it = view.find(key);
        return it != view.end() && it->is_number_integer() ? it->get<std::int64_t>() - 1 : -1;
    };
    const std::int64_t head = index("head"), query = index("query");
    m_restoreView = connect(m_document, &Document::traceChanged, this,
                            [this, head, query](const std::shared_ptr<const core::Trace>& trace) {
                                disconnect(m_restoreView);
                                if (!trace)
                                    return;
                                if (head >= 0 && head < trace->model->heads())
                                    m_view->setHead(int(head));
                                if (query >= 0 && query < trace->model->n())
                                    m_view->setSelectedQuery(int(query));
                            });
}

bool SessionController::saveFile(const QString& path, QString* error)
{
    if (!m_document->saveFile(path, error, savedView()))
        return false;
    addRecentFile(m_document->filePath());
    showStatus(tr("Saved %1").arg(QFileInfo(path).fileName()));
    return true;
}

bool SessionController::loadPreset(const QString& name)
{
    if (auto model = core::modelPreset(name.toStdString())) {
        restoreViewWhenComputed(model->extras);  // the head and query where the preset's pattern shows
        QString why;
        if (!openModelSession(*model, QString(), &why)) {
            disconnect(m_restoreView);
            if (!why.isEmpty())
                showError(tr("Cannot open the model"),
                          ModelLoader::refusal(QString::fromStdString(core::builtinModelFolder()), why));
            return false;
        }
        showStatus(tr("Loaded the preset “%1”").arg(presetTitle(name)));
        return true;
    }
    auto session = core::preset(name.toStdString());
    if (!session)
        return false;
    m_document->loadSession(*session, QString());
    showStatus(tr("Loaded the preset “%1”").arg(presetTitle(name)));
    return true;
}

QStringList SessionController::recentFiles() const
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void SessionController::addRecentFile(const QString& path)
{
    remember(QStringLiteral("recentFiles"), path);
    updateRecentMenu();
}

void SessionController::setRecentMenu(QMenu* menu)
{
    m_recentMenu = menu;
    connect(menu, &QMenu::aboutToShow, this, &SessionController::updateRecentMenu);
    i18n::onLanguageChange(this, [this] { updateRecentMenu(); });
}

void SessionController::updateRecentMenu()
{
    fillRecentMenu(
        m_recentMenu, QStringLiteral("recentFiles"), [](const QString& path) { return QFileInfo(path).fileName(); },
        [this](const QString& path) { openInteractively(path); }, tr("No recent files"), true);
}

void SessionController::fillRecentMenu(QMenu* menu, const QString& key,
                                       const std::function<QString(const QString&)>& name,
                                       const std::function<void(const QString&)>& open, const QString& none,
                                       bool shortcuts)
{
    if (!menu)
        return;
    menu->clear();
    const QStringList entries = QSettings().value(key).toStringList();
    int number = 1;
    for (const QString& path : entries) {
        QAction* action = menu->addAction(tr("&%1 %2").arg(number).arg(name(path)), this, [=, this] {
            open(path);
            // A file or folder that is gone was refused with a message saying so; its entry goes with it. One
            // that is there but was refused (broken, or a folder without a model yet) stays.
            if (!QFileInfo::exists(path)) {
                forget(key, path);
                fillRecentMenu(menu, key, name, open, none, shortcuts);
            }
        });
        action->setStatusTip(path);
        if (shortcuts && number <= 9)
            action->setShortcut(QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key(Qt::Key_0 + number)));
        ++number;
    }
    if (entries.isEmpty())
        menu->addAction(none)->setEnabled(false);
    menu->addSeparator();
    QAction* clear = menu->addAction(tr("&Clear List"), this, [=, this] {
        QSettings().remove(key);
        fillRecentMenu(menu, key, name, open, none, shortcuts);
    });
    clear->setEnabled(!entries.isEmpty());
}

bool SessionController::maybeSave()
{
    if (!m_document->isModified())
        return true;
    QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"), tr("The session has changes that are not saved."),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, m_dialogParent());
    box.setObjectName(QStringLiteral("unsavedChangesBox"));
    box.setInformativeText(tr("Do you want to save them first?"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

bool SessionController::closing()
{
    if (!maybeSave())
        return false;
    m_autosave->remove();  // saved, discarded or nothing to save: nothing left to recover
    return true;
}

void SessionController::newSession()
{
    choosePreset(QStringLiteral("illustrated"));
}

void SessionController::choosePreset(const QString& name)
{
    if (maybeSave())
        loadPreset(name);
}

void SessionController::openDialog()
{
    const QString dir = m_document->filePath().isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
        : QFileInfo(m_document->filePath()).absolutePath();
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open Session"), dir, sessionFilter());
    if (!path.isEmpty())
        openAsked(path);
}

void SessionController::openInteractively(const QString& path)
{
    if (maybeSave())
        openAsked(path);
}

void SessionController::openAsked(const QString& path)
{
    openFileOrSay(path);
}

bool SessionController::openFileOrSay(const QString& path, QString* error)
{
    QString why;
    if (openFile(path, &why))
        return true;
    if (!why.isEmpty())  // else a model's load was cancelled
        showError(tr("Could not open the session"), why);
    if (error)
        *error = why;
    return false;
}

bool SessionController::save()
{
    if (m_document->filePath().isEmpty())
        return saveAs();
    QString error;
    if (!saveFile(m_document->filePath(), &error)) {
        showError(tr("Could not save the session"), error);
        return false;
    }
    return true;
}

bool SessionController::saveAs()
{
    const QString start = m_document->filePath().isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation) + QLatin1Char('/') + suggestedBaseName()
            + QStringLiteral(".json")
        : m_document->filePath();
    QString path = QFileDialog::getSaveFileName(m_dialogParent(), tr("Save Session As"), start, sessionFilter());
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    QString error;
    if (!saveFile(path, &error)) {
        showError(tr("Could not save the session"), error);
        return false;
    }
    return true;
}

QString SessionController::localFileOf(const QMimeData* mime)
{
    if (!mime || !mime->hasUrls())
        return {};
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile())
            return url.toLocalFile();
    return {};
}

QString SessionController::sessionTitle() const
{
    const nlohmann::json& extras = m_document->session().extras();
    if (extras.is_object() && extras.contains("title") && extras["title"].is_string())
        return sessionTitleForPeople(QString::fromStdString(extras["title"].get<std::string>()));
    // A model session is its model's shown layer: the report, the code and the window say which.
    if (const ModelSession* model = m_document->modelSession())
        return modelSessionTitle(modelName(model->folder()), model->shownLayer() + 1);
    return {};
}

QString SessionController::suggestedBaseName() const
{
    if (!m_document->filePath().isEmpty())
        return QFileInfo(m_document->filePath()).completeBaseName();
    QString name;
    for (const QChar c : sessionTitle())
        name += c.isLetterOrNumber() ? c.toLower() : QLatin1Char('-');
    name = name.split(QLatin1Char('-'), Qt::SkipEmptyParts).join(QLatin1Char('-'));
    return name.isEmpty() ? tr("attention") : name;
}

QString SessionController::windowTitle() const
{
    QString name = m_document->filePath().isEmpty() ? sessionTitle() : QFileInfo(m_document->filePath()).fileName();
    if (name.isEmpty())
        name = tr("Untitled");
    if (m_recovered)
        name = tr("%1 (recovered)").arg(name);
    return name + QStringLiteral("[*]");
}

void SessionController::showError(const QString& lead, const QString& detail)
{
    auto* box = new QMessageBox(QMessageBox::Warning, lead, lead, QMessageBox::Ok, m_dialogParent());
    box->setInformativeText(detail);
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void SessionController::showStatus(const QString& text, int timeoutMs)
{
    m_window->statusBar()->showMessage(text, timeoutMs);
}

bool SessionController::offerRecovery()
{
    std::vector<RecoverableSession> found = Autosave::findRecoverable(m_autosave->folder());
    if (found.empty())
        return false;
    RecoverableSession& kept = found.front();  // the newest; any others wait for the next start
    const int tokens = kept.session.model.n();
    const core::ModelSession* model = kept.modelSession ? &*kept.modelSession : nullptr;
    QMessageBox box(QMessageBox::Question, tr("Recover Unsaved Changes"),
                    tr("Attention Explorer did not close properly. It kept a session with changes that were not "
                       "saved."),
                    QMessageBox::NoButton, m_window);
    box.setObjectName(QStringLiteral("recoveryBox"));
    QString what = tokens == 1 ? tr("1 token") : tr("%1 tokens").arg(tokens);
    if (model) {
        const QString name = modelName(QString::fromStdString(model->modelPath));
        const std::size_t edits = model->edits.size();
        what = edits == 0 ? tr("the model %1 and no edits of its weights").arg(name)
            : edits == 1  ? tr("the model %1 and 1 edit of its weights").arg(name)
                          : tr("the model %1 and %2 edits of its weights").arg(name).arg(edits);
    }
    QString details = tr("Kept at %1, with %2.").arg(QLocale().toString(kept.savedAt, QLocale::LongFormat), what);
    details += QLatin1Char('\n');
    details += kept.originalPath.isEmpty()
        ? tr("It was never saved to a file.")
        : tr("It came from %1; that file does not have these changes.").arg(QDir::toNativeSeparators(kept.originalPath));
    if (found.size() > 1)
        details += QLatin1Char('\n') + tr("Other kept sessions: %1. They will be offered at the next start.")
                                           .arg(found.size() - 1);
    box.setInformativeText(details);
    QPushButton* recover = box.addButton(tr("&Recover"), QMessageBox::AcceptRole);
    recover->setObjectName(QStringLiteral("recoverButton"));
    QPushButton* discard = box.addButton(tr("&Discard"), QMessageBox::DestructiveRole);
    discard->setObjectName(QStringLiteral("discardRecoveryButton"));
    QPushButton* later = box.addButton(tr("Decide &Later"), QMessageBox::RejectRole);
    later->setObjectName(QStringLiteral("laterButton"));
    box.setDefaultButton(recover);
    box.setEscapeButton(later);
    box.exec();

    if (box.clickedButton() == discard) {
        Autosave::removeRecoverable(kept);
        showStatus(tr("Discarded the kept session"));
        return false;
    }
    if (box.clickedButton() != recover)
        return false;  // the lock goes with found: the next start offers it again
    if (model) {
        // Its checkpoint loads as any model's; when it cannot, the kept file waits for the next start.
        QString error;
        if (!openModelSession(*model, kept.originalPath, &error)) {
            if (!error.isEmpty())
                showError(tr("Could not recover the session"), error);
            return false;
        }
        m_document->markRecovered();
    } else {
        m_document->loadRecovered(kept.session, kept.originalPath);
    }
    m_recovered = true;
    emit titleChanged();
    // Keep it under this window's name before the old file goes, so no moment holds it nowhere;
    // when that cannot be written the old file stays, for the next start.
    m_autosave->autosaveNow();
    m_autosave->waitForWrite();
    if (QFileInfo::exists(m_autosave->filePath()))
        Autosave::removeRecoverable(kept);
    showStatus(tr("Recovered the session kept at %1; it is not saved yet.")
                   .arg(QLocale().toString(kept.savedAt, QLocale::ShortFormat)));
    return true;
}

}  // namespace ui
