#include "ui/views/shell/mainmenus.h"

#include "core/session/presets.h"
#include "ui/views/shell/fileactions.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/teaching/helpdialogs.h"
#include "ui/views/teaching/presetnames.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"

#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QUndoStack>

namespace ui {

MainMenus::MainMenus(QMainWindow* window, Document* document, HeatmapWidget* heatmap, SessionController* session,
                     FileActions* files, const QList<QDockWidget*>& docks, WindowHooks hooks)
    : QObject(window), m_window(window), m_document(document), m_heatmap(heatmap), m_session(session), m_files(files),
      m_hooks(std::move(hooks)), m_actions("ui::MainMenus", window), m_help(new HelpDialogs(window))
{
    createActions();
    createMenus(docks);
    i18n::onLanguageChange(this, [this] { retranslate(); });
}

void MainMenus::setFigureAvailable(bool available)
{
    m_exportAction->setEnabled(available);
    m_copyAction->setEnabled(available);
}

void MainMenus::createActions()
{
    using Keys = QList<QKeySequence>;
    auto keys = [](QKeySequence::StandardKey key) { return QKeySequence::keyBindings(key); };
    ActionTable& t = m_actions;
    FileActions* f = m_files;
    SessionController* s = m_session;
    QUndoStack* stack = m_document->undoStack();

    // Every action of the menus: object name, text, status tip, shortcuts, icon, what it does.
    t.add({"newAction", QT_TR_NOOP("&New"), QT_TR_NOOP("Start again from the worked example"), keys(QKeySequence::New),
           "document-new", [s] { s->newSession(); }});
    t.add({"openAction", QT_TR_NOOP("&Open…"), QT_TR_NOOP("Open a session file"), keys(QKeySequence::Open),
           "document-open", [s] { s->openDialog(); }});
    t.add({"openModelAction", QT_TR_NOOP("Open &Model…"),
           QT_TR_NOOP("Open a model of the Hugging Face cache, or a checkpoint folder (config.json, the safetensors "
                      "weights, the tokenizer)"),
           Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_O}, "folder-open", [s] { s->openModelDialog(); }});
    t.add({"downloadModelAction", QT_TR_NOOP("Do&wnload Model…"),
           QT_TR_NOOP("Fetch a model from the Hugging Face Hub into the cache, then open it"), {}, "go-down",
           [s] { s->downloadModelDialog(); }});
    t.add({"openBuiltinModelAction", QT_TR_NOOP("Open &Built-in Model"),
           QT_TR_NOOP("Open the small model trained for teaching that comes with the program"), {}, nullptr,
           [s] { s->openBuiltinModel(); }});
    t.add({"saveAction", QT_TR_NOOP("&Save"), nullptr, keys(QKeySequence::Save), "document-save", [s] { s->save(); }});
    t.add({"saveAsAction", QT_TR_NOOP("Save &As…"), nullptr, keys(QKeySequence::SaveAs), "document-save-as",
           [s] { s->saveAs(); }});
    m_exportAction = t.add({"exportHeatmapAction", QT_TR_NOOP("&Export Heatmap…"),
                            QT_TR_NOOP("Write the heatmap as shown to a PNG, SVG or PDF file"), Keys{Qt::CTRL | Qt::Key_E},
                            "document-export", [f] { f->exportHeatmapDialog(); }});
    m_copyAction = t.add({"copyHeatmapAction", QT_TR_NOOP("&Copy Heatmap Image"),
                          QT_TR_NOOP("Copy the heatmap to the clipboard as an image"), Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_C},
                          "edit-copy", [f] { f->copyHeatmap(); }});
    t.add({"exportReportAction", QT_TR_NOOP("Export &Report (PDF)…"),
           QT_TR_NOOP("Every step with its formula, its matrices as numbers and heatmaps, and an explanation"),
           Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_P}, nullptr, [f] { f->exportReportDialog(); }});
    t.add({"exportHandoutAction", QT_TR_NOOP("Export &Handout…"),
           QT_TR_NOOP("One page to hand out: the tokens, the heatmap of the weights and the seven formulas"),
           Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_H}, nullptr, [f] { f->exportHandoutDialog(); }});
    t.add({"exportOverviewAction", QT_TR_NOOP("Export &Overview…"),
           QT_TR_NOOP("Write every layer × head, as the Overview panel shows them, to a PNG, SVG or PDF file"), {}, nullptr,
           [f] { f->exportOverviewDialog(); }});
    t.add({"exportHeadViewAction", QT_TR_NOOP("Export Head &View…"),
           QT_TR_NOOP("Write the head view's lines, as the Head View panel shows them, to a PNG, SVG or PDF file"), {},
           nullptr, [f] { f->exportHeadViewDialog(); }});
    t.add({"exportSlidesAction", QT_TR_NOOP("Export S&lides (PDF)…"),
           QT_TR_NOOP("The teaching slides of the current head and query, one per page"), {}, nullptr,
           [f] { f->exportSlidesDialog(); }});
    t.add({"exportStepsAction", QT_TR_NOOP("Export Step &Matrices…"),
           QT_TR_NOOP("One CSV file per step and head, and the whole computation as JSON, into a folder"),
           Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_M}, nullptr, [f] { f->exportStepsDialog(); }});
    t.add({"exportCodeAction", QT_TR_NOOP("Export &PyTorch Code…"), nullptr, Keys{Qt::CTRL | Qt::ALT | Qt::Key_E}, nullptr,
           [f] { f->exportCodeDialog(); }});
    t.add({"copyCodeAction", QT_TR_NOOP("Copy as PyTorch &Code"),
           QT_TR_NOOP("Python that reproduces every step of this session with torch"), Keys{Qt::CTRL | Qt::ALT | Qt::Key_C},
           nullptr, [f] { f->copyCode(); }});
    t.add({"importMatrixAction", QT_TR_NOOP("&Import Matrix…"),
           QT_TR_NOOP("Replace the matrix of the current editor tab with one from a .npy or .csv file"),
           Keys{Qt::CTRL | Qt::Key_I}, nullptr, [f] { f->importMatrixDialog(); }});
    t.add({"exportMatrixAction", QT_TR_NOOP("Export Mat&rix…"), QT_TR_NOOP("Write the matrix of the current editor tab as .npy or .csv"),
           Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_I}, nullptr, [f] { f->exportMatrixDialog(); }});
    // Platforms without a standard quit key (Windows, a bare X server) still get Ctrl+Q.
    m_quitAction = t.add({"quitAction", QT_TR_NOOP("&Quit"), nullptr, standardOr(QKeySequence::Quit, Qt::CTRL | Qt::Key_Q),
                          "application-exit", [this] { m_window->close(); }});
    m_quitAction->setMenuRole(QAction::QuitRole);
    // Our own undo and redo actions, not QUndoStack's, so that their texts follow a change of language.
    m_undoAction = t.add({"undoAction", nullptr, nullptr, keys(QKeySequence::Undo), "edit-undo", [stack] { stack->undo(); }});
    m_redoAction = t.add({"redoAction", nullptr, nullptr, keys(QKeySequence::Redo), "edit-redo", [stack] { stack->redo(); }});
    m_undoAction->setEnabled(stack->canUndo());
    m_redoAction->setEnabled(stack->canRedo());
    connect(stack, &QUndoStack::canUndoChanged, m_undoAction, &QAction::setEnabled);
    connect(stack, &QUndoStack::canRedoChanged, m_redoAction, &QAction::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, this, &MainMenus::updateUndoTexts);
    connect(stack, &QUndoStack::redoTextChanged, this, &MainMenus::updateUndoTexts);
    // The model writes (the Next Token panel's Append), only where a model session has a model to ask.
    QAction* append = t.add({"appendTokenAction", QT_TR_NOOP("&Append Next Token"),
                             QT_TR_NOOP("Append the token the model chooses to the text, as the Next Token panel says"),
                             Keys{Qt::CTRL | Qt::Key_Return, Qt::CTRL | Qt::Key_Enter}, nullptr,
                             [d = m_document] { d->appendTokens(1); }});
    QAction* appendTen = t.add({"appendTenAction", QT_TR_NOOP("Append &10 Tokens"),
                                QT_TR_NOOP("Append ten tokens the model chooses, one after another, as one undo step"),
                                Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_Return, Qt::CTRL | Qt::SHIFT | Qt::Key_Enter},
                                nullptr, [d = m_document] { d->appendTokens(10); }});
    auto enableAppend = [d = m_document, append, appendTen] {
        const bool on = d->isModelSession() && !d->isAppending();
        append->setEnabled(on);
        appendTen->setEnabled(on);
    };
    connect(m_document, &Document::modelChanged, this, enableAppend);
    connect(m_document, &Document::appendingChanged, this, enableAppend);
    enableAppend();
    QAction* fullScreen = t.add({"fullScreenAction", QT_TR_NOOP("&Full Screen"), nullptr, keys(QKeySequence::FullScreen),
                                 "view-fullscreen", nullptr});
    fullScreen->setCheckable(true);
    connect(fullScreen, &QAction::toggled, this, [this](bool on) { on ? m_window->showFullScreen() : m_window->showNormal(); });
    t.add({"teachingAction", QT_TR_NOOP("&Teaching Mode"), QT_TR_NOOP("Step through the seven steps full screen, one per slide"),
           Keys{Qt::Key_F5}, "x-office-presentation", [this] { m_hooks.startTeaching(); }});
    t.add({"scalingAction", QT_TR_NOOP("&Why Divide by √d_k?"), nullptr, Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_K}, nullptr, [this] { m_hooks.showScaling(); }});
    t.add({"resetLayoutAction", QT_TR_NOOP("&Reset Layout"), nullptr, Keys{Qt::CTRL | Qt::SHIFT | Qt::Key_R},
                                 nullptr, [this] { m_hooks.resetLayout(); }});
    t.add({"aboutAction", QT_TR_NOOP("&About Attention Explorer"), nullptr, keys(QKeySequence::HelpContents), "help-about", [this] {
               QMessageBox::about(m_window, tr("About Attention Explorer"),
                                  tr("<h3>Attention Explorer %1</h3>"
                                     "<p>See and touch every number of self-attention: type tokens, edit X and the weight "
                                     "matrices, and watch the scores, the softmax and the outputs follow.</p>"
                                     "<p>Hover any number to see the arithmetic behind it.</p>")
                                      .arg(QCoreApplication::applicationVersion()));
           }});
    t.actions().last()->setMenuRole(QAction::AboutRole);
    t.add({"aboutQtAction", QT_TR_NOOP("About &Qt"), nullptr, Keys{Qt::SHIFT | Qt::Key_F1}, nullptr, [] { QApplication::aboutQt(); }});
    t.actions().last()->setMenuRole(QAction::AboutQtRole);

    t.add({"quickStartAction", QT_TR_NOOP("&Quick Start"), QT_TR_NOOP("Three things to try first"), {}, nullptr,
           [this] { m_help->showQuickStart(); }});
    t.add({"whatYouCanDoAction", QT_TR_NOOP("&What You Can Do"), QT_TR_NOOP("Everything this program does, in short"), {},
           nullptr, [this] { m_help->showWhatYouCanDo(); }});
    t.add({"shortcutsAction", QT_TR_NOOP("&Keyboard Shortcuts"), QT_TR_NOOP("Every key of the menus"), {}, nullptr,
           [this] { m_help->showShortcuts(); }});

    // The menu names the presets for people; the command line keeps their machine names. The built-in model's
    // presets follow the plain ones.
    int key = Qt::Key_1;
    std::vector<core::PresetInfo> presets = core::presetList();
    for (core::PresetInfo& info : core::modelPresetList())
        presets.push_back(std::move(info));
    for (const core::PresetInfo& info : presets) {
        const QString name = QString::fromStdString(info.name);
        auto* action = new QAction(m_window);
        action->setObjectName(QStringLiteral("preset_") + name);
        action->setData(name);
        if (key <= Qt::Key_9)
            action->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key(key++)));
        connect(action, &QAction::triggered, s, [s, name] { s->choosePreset(name); });
        m_presetActions << action;
    }
}

QMenu* MainMenus::addMenu(QMenu* parent, const char* title)
{
    QMenu* menu = parent ? parent->addMenu(QString()) : m_window->menuBar()->addMenu(QString());
    m_menus.push_back({menu, title});
    return menu;
}

void MainMenus::createMenus(const QList<QDockWidget*>& docks)
{
    // The actions of the table by name, in the order of the menus; an empty name is a separator.
    auto fill = [this](QMenu* menu, std::initializer_list<const char*> names) {
        for (const char* name : names) {
            if (name[0])
                menu->addAction(m_window->findChild<QAction*>(QLatin1String(name), Qt::FindDirectChildrenOnly));
            else
                menu->addSeparator();
        }
    };
    QMenu* file = addMenu(nullptr, QT_TR_NOOP("&File"));
    fill(file, {"newAction", "openAction"});
    QMenu* recent = addMenu(file, QT_TR_NOOP("Open &Recent"));
    recent->setIcon(QIcon::fromTheme(QStringLiteral("document-open-recent")));
    m_session->setRecentMenu(recent);
    fill(file, {"openModelAction", "downloadModelAction", "openBuiltinModelAction"});
    QMenu* recentModels = addMenu(file, QT_TR_NOOP("Recent Mo&dels"));
    m_session->setRecentModelsMenu(recentModels);
    fill(file, {"", "saveAction", "saveAsAction", "", "exportHeatmapAction", "copyHeatmapAction", "exportOverviewAction", "exportHeadViewAction", "exportReportAction",
                "exportHandoutAction", "exportSlidesAction", "exportStepsAction", "exportCodeAction", "copyCodeAction", "", "importMatrixAction", "exportMatrixAction", "",
                "quitAction"});
    fill(addMenu(nullptr, QT_TR_NOOP("&Edit")), {"undoAction", "redoAction", "", "appendTokenAction", "appendTenAction"});

    QMenu* view = addMenu(nullptr, QT_TR_NOOP("&View"));
    addMenu(view, QT_TR_NOOP("Heatmap &Step"))->addActions(m_heatmap->stepActions());
    QMenu* colours = addMenu(view, QT_TR_NOOP("&Colour Map"));
    const QList<QAction*> colourActions = m_heatmap->colormapActions();
    colours->addAction(colourActions.first());
    colours->addSeparator();
    colours->addActions(colourActions.mid(1));
    view->addAction(m_heatmap->annotateAction());
    view->addSeparator();
    view->addActions({m_heatmap->zoomInAction(), m_heatmap->zoomOutAction(), m_heatmap->zoomFitAction()});
    view->addSeparator();
    QMenu* panels = addMenu(view, QT_TR_NOOP("&Panels"));
    // Ctrl+Shift+1 … 9, then 0: the keys past the digits (":", ";", "<" …) are not where a hand looks for them
    int index = 0;
    for (QDockWidget* dock : docks) {
        QAction* toggle = dock->toggleViewAction();
        if (index < 10)
            toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key(Qt::Key_0 + (index + 1) % 10)));
        ++index;
        panels->addAction(toggle);
    }
    fill(panels, {"", "resetLayoutAction"});
    fill(view, {"fullScreenAction", "teachingAction", "scalingAction"});

    QMenu* presets = addMenu(nullptr, QT_TR_NOOP("&Presets"));
    presets->setToolTipsVisible(true);
    const auto plainPresets = qsizetype(core::presetList().size());
    presets->addActions(m_presetActions.mid(0, plainPresets));
    presets->addSeparator();
    presets->addActions(m_presetActions.mid(plainPresets));

    // Written in both languages, whichever is on, so that someone who cannot read the current one finds it.
    m_languageMenu = view->addMenu(QStringLiteral("&Language / 语言"));
    m_languageMenu->setObjectName(QStringLiteral("languageMenu"));
    auto* languages = new QActionGroup(this);
    for (const QString& code : i18n::availableLanguages()) {
        QAction* action = m_languageMenu->addAction(i18n::nativeName(code));
        action->setObjectName(QStringLiteral("language_") + code);
        action->setData(code);
        action->setCheckable(true);
        languages->addAction(action);
        connect(action, &QAction::triggered, this, [code] {
            i18n::applyLanguage(code);
            i18n::saveLanguage(code);
        });
    }
    fill(addMenu(nullptr, QT_TR_NOOP("&Help")),
         {"quickStartAction", "whatYouCanDoAction", "shortcutsAction", "", "aboutAction", "aboutQtAction"});
}

void MainMenus::retranslate()
{
    m_actions.retranslate();
    updateUndoTexts();
    for (const TitledMenu& entry : m_menus)
        entry.menu->setTitle(tr(entry.title));
    for (QAction* action : m_presetActions) {
        const QString name = action->data().toString();
        action->setText(presetTitle(name));
        action->setStatusTip(presetDescription(name));
        action->setToolTip(presetDescription(name));
    }
    for (QAction* action : m_languageMenu->actions())
        action->setChecked(action->data().toString() == i18n::currentLanguage());
}

void MainMenus::updateUndoTexts()
{
    const QUndoStack* stack = m_document->undoStack();
    m_undoAction->setText(stack->undoText().isEmpty() ? tr("&Undo") : tr("&Undo: %1").arg(stack->undoText()));
    m_redoAction->setText(stack->redoText().isEmpty() ? tr("&Redo") : tr("&Redo: %1").arg(stack->redoText()));
}

}  // namespace ui
