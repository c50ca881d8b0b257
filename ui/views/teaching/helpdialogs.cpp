#include "ui/views/teaching/helpdialogs.h"

#include "core/session/presets.h"
#include "ui/i18n/language.h"
#include "ui/views/teaching/presetnames.h"

#include <QAction>
#include <QCheckBox>
#include <QCommandLinkButton>
#include <QDialog>
#include <QDialogButtonBox>
#include <QKeySequence>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QTextBrowser>
#include <QHBoxLayout>
#include <QVBoxLayout>

namespace ui {

namespace {

/** A menu text as read, without its accelerator ("&File", "文件(&F)") or a trailing ellipsis. */
QString plainText(QString text)
{
    static const QRegularExpression accelerator(QStringLiteral("\\(&[^)]\\)"));
    text.remove(accelerator);
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
    if (text.endsWith(QChar(0x2026)))
        text.chop(1);
    return text.trimmed();
}

/** Every entry of menu and its submenus that has keys: (where › what, keys). */
void collectShortcuts(const QMenu* menu, const QString& path, QList<std::pair<QString, QString>>& out)
{
    for (const QAction* action : menu->actions()) {
        if (action->isSeparator())
            continue;
        const QString where = path.isEmpty() ? plainText(action->text()) : path + QStringLiteral(" › ") + plainText(action->text());
        if (action->menu()) {
            collectShortcuts(action->menu(), where, out);
            continue;
        }
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        if (!keys.isEmpty())
            out.append({where, keys.join(QStringLiteral(", "))});
    }
}

/** The README's "What you can do", one paragraph per entry: a bold lead and its text. */
struct Ability {
    const char* lead;
    const char* text;
};

constexpr Ability abilities[] = {
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Type your own sentence."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "The token line re-tokenizes as you type (a Chinese character is a token of its own); new "
                       "tokens get derived embedding rows, rows you edited stay with their token.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Edit every number."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "X, W_Q, W_K, W_V and W_O are tables: type into a cell, paste a block from a spreadsheet, fill "
                       "with seeded random numbers, zeros or the identity, scale by a factor, change d_model, d_k, d_v "
                       "and the number of heads. Every edit can be undone and everything recomputes live.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "See every step."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "The steps panel shows the seven steps with their formula, shape and matrix; the walkthrough "
                       "lays out one query's scores, softmax, weighted values and sum as the article does.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Open a real model."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "File › Open Model reads a GPT-2-family checkpoint folder: its tokenizer splits your text, every "
                       "view shows the chosen layer, and the Next Token panel ranks what the model predicts next, "
                       "with the change your edits of its weights make.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "See every layer and head at once."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "The Overview panel draws each layer × head as a small heatmap with what its pattern looks like; "
                       "click one to show it. The Head View joins each query to the keys it attends to by lines as "
                       "strong as the weights, one colour per head.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Choose what the colours stand for."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "The heatmap's Range sets the ends of the colour map: 0 to 1, the matrix's smallest and largest "
                       "value, each row's own, or a logarithmic scale for weights too small to tell apart; the "
                       "overview and the exports follow it.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Ask any number where it came from."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "Hover a cell: the tooltip shows its arithmetic and the rows and columns it came from light up.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Teach with it."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "View › Teaching Mode goes full screen, one step per slide; Right, Left, Page Down, Page Up and "
                       "Space move, Ctrl + and Ctrl − zoom, Esc leaves. It walks the chosen query and head through "
                       "the steps in full, then shows every query at once, and follows live edits. File › Export "
                       "Slides writes the same slides as a PDF deck.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Show why √d_k."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "View › Why Divide by √d_k? charts, for random queries and keys, how the spread of the scores, "
                       "the softmax's peak, its entropy and its gradient change with d_k, scaled and not.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Export anything."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "The heatmap as PNG, SVG or PDF; a PDF report of every step; a one-page handout; every step "
                       "matrix as CSV and the whole computation as JSON; PyTorch code that reproduces the session; "
                       "any matrix in or out as .npy or CSV.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Never lose work."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "Saves are atomic, and a session with unsaved changes is also written every 30 seconds; after a "
                       "crash the next start offers it back.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Go long."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "Sessions of up to 8192 tokens and d_model 4096 open and stay live; matrices too large to read "
                       "as numbers show as heatmaps you can zoom into.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Fit a projector."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "The window works from 1024 × 640 up: toolbars and tools wrap onto more lines instead of "
                       "shrinking.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Reach it with a screen reader."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "Every control has a name, in English and Chinese; the heatmap reads as a table.")},
    {QT_TRANSLATE_NOOP("ui::HelpDialogs", "Speak Chinese."),
     QT_TRANSLATE_NOOP("ui::HelpDialogs",
                       "View › Language / 语言 switches every menu, panel, slide and Qt's own dialogs between English "
                       "and Simplified Chinese without a restart, and remembers the choice.")},
};

}  // namespace

HelpDialogs::HelpDialogs(QMainWindow* window) : QObject(window), m_window(window) {}

QString HelpDialogs::quickStartKey()
{
    return QStringLiteral("help/showQuickStart");
}

QDialog* HelpDialogs::newDialog(const char* objectName)
{
    auto* dialog = new QDialog(m_window);
    dialog->setObjectName(QLatin1String(objectName));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setModal(false);
    return dialog;
}

bool HelpDialogs::showQuickStartIfFirst()
{
    // Shown at each start until "Don't show again" is ticked.
    if (!QSettings().value(quickStartKey(), true).toBool())
        return false;
    showQuickStart();
    return true;
}

void HelpDialogs::fillQuickStart()
{
    if (!m_quickStart)
        return;
    auto* text = m_quickStart->findChild<QLabel*>(QStringLiteral("quickStartText"));
    auto* again = m_quickStart->findChild<QCheckBox*>(QStringLiteral("dontShowAgainBox"));
    const QAction* teaching = m_window->findChild<QAction*>(QStringLiteral("teachingAction"));
    m_quickStart->setWindowTitle(tr("Quick Start"));
    const QString key = teaching ? teaching->shortcut().toString(QKeySequence::NativeText) : QString();
    text->setText(QStringLiteral("<h3>%1</h3><ol><li>%2</li><li>%3</li><li>%4</li></ol><p>%5</p>")
                      .arg(tr("Three things to try").toHtmlEscaped(), tokensHint().toHtmlEscaped(),
                           tr("Hover a number (in the heatmap, the steps or the tables) to see the arithmetic "
                              "behind it.")
                               .toHtmlEscaped(),
                           tr("Press %1 for teaching mode: full screen, one step per slide; Esc leaves.")
                               .arg(key)
                               .toHtmlEscaped(),
                           tr("Help › Quick Start shows this again.").toHtmlEscaped()));
    text->setAccessibleName(tr("Quick start"));
    m_quickStart->findChild<QLabel*>(QStringLiteral("quickStartModelText"))
        ->setText(QStringLiteral("<h3>%1</h3><p>%2</p>")
                      .arg(tr("See what a trained model learnt").toHtmlEscaped(),
                           tr("The small model that comes with the program has heads you can find and name. Open "
                              "it where one shows:")
                               .toHtmlEscaped()));
    for (auto* button : m_quickStart->findChildren<QCommandLinkButton*>()) {
        const QString name = button->property("preset").toString();
        button->setText(presetTitle(name));
        button->setAccessibleDescription(presetDescription(name));
        m_quickStart->findChild<QLabel*>(QStringLiteral("quickStartAbout_") + name)->setText(presetDescription(name));
    }
    again->setText(tr("Don't show again"));
    // As tall as the wrapped texts are at its width: Qt sizes a new window to at most two thirds of the screen's
    // height, which cut the last lines on a 720-pixel screen.
    const int width = std::max(m_quickStart->width(), m_quickStart->sizeHint().width());
    m_quickStart->resize(width, m_quickStart->layout()->totalHeightForWidth(width));
}

void HelpDialogs::showQuickStart()
{
    if (!m_quickStart) {
        QDialog* dialog = m_quickStart = newDialog("quickStartDialog");
        auto* text = new QLabel(dialog);
        text->setObjectName(QStringLiteral("quickStartText"));
        text->setWordWrap(true);
        text->setTextFormat(Qt::RichText);
        text->setMinimumWidth(520);
        auto* modelText = new QLabel(dialog);
        modelText->setObjectName(QStringLiteral("quickStartModelText"));
        modelText->setWordWrap(true);
        modelText->setTextFormat(Qt::RichText);
        // One click from the first start to a trained head: each button loads a preset of the built-in model.
        auto* presets = new QVBoxLayout;
        presets->setSpacing(0);
        for (const core::PresetInfo& info : core::modelPresetList()) {
            const QString name = QString::fromStdString(info.name);
            auto* button = new QCommandLinkButton(dialog);
            button->setObjectName(QStringLiteral("quickStart_") + name);
            button->setProperty("preset", name);
            connect(button, &QCommandLinkButton::clicked, this, [this, name] {
                m_quickStart->close();
                if (m_openPreset)
                    m_openPreset(name);
            });
            // The description beneath, as a label: QCommandLinkButton's own is cut when it takes three lines.
            auto* about = new QLabel(dialog);
            about->setObjectName(QStringLiteral("quickStartAbout_") + name);
            about->setWordWrap(true);
            // indented under the title by a spacing, not a margin (a label's height for its width ignores margins)
            auto* indented = new QHBoxLayout;
            indented->setContentsMargins(0, 0, 0, 6);
            indented->addSpacing(button->iconSize().width() + 16);
            indented->addWidget(about, 1);
            presets->addWidget(button);
            presets->addLayout(indented);
        }
        auto* again = new QCheckBox(dialog);
        again->setObjectName(QStringLiteral("dontShowAgainBox"));
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
        connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
        connect(dialog, &QDialog::finished, this, [again] { QSettings().setValue(quickStartKey(), !again->isChecked()); });
        auto* layout = new QVBoxLayout(dialog);
        layout->addWidget(text);
        layout->addWidget(modelText);
        layout->addLayout(presets);
        layout->addWidget(again);
        layout->addWidget(buttons);
        i18n::onLanguageChange(dialog, [this] { fillQuickStart(); });
    }
    fillQuickStart();  // a model opened since speaks of its tokenizer
    // Ticked as the person last left it: unticked until they ask not to see it again.
    m_quickStart->findChild<QCheckBox*>(QStringLiteral("dontShowAgainBox"))
        ->setChecked(!QSettings().value(quickStartKey(), true).toBool());
    m_quickStart->show();
    m_quickStart->raise();
}

QString HelpDialogs::tokensHint() const
{
    // A model's tokenizer splits words into pieces: "every word becomes a token" is the plain session's rule.
    if (m_isModelSession && m_isModelSession())
        return tr("Type a text in the Tokens line: the model's tokenizer splits it into tokens (a word may be "
                  "several), and every number follows as you type.");
    return tr("Type a sentence in the Tokens line: every word becomes a token, and every number follows as you "
              "type.");
}

QString HelpDialogs::shortcutsHtml() const
{
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
    for (const QAction* top : m_window->menuBar()->actions()) {
        if (!top->menu())
            continue;
        QList<std::pair<QString, QString>> entries;
        collectShortcuts(top->menu(), QString(), entries);
        if (entries.isEmpty())
            continue;
        html += QStringLiteral("<tr><td colspan=\"2\"><b>%1</b></td></tr>").arg(plainText(top->text()).toHtmlEscaped());
        for (const auto& [what, keys] : entries)
            html += QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;%2</td></tr>").arg(what.toHtmlEscaped(), keys.toHtmlEscaped());
    }
    return html + QStringLiteral("</table>");
}

QTextBrowser* HelpDialogs::newTextDialog(const char* objectName, QSize size)
{
    QDialog* dialog = newDialog(objectName);
    auto* view = new QTextBrowser(dialog);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(view);
    layout->addWidget(buttons);
    dialog->resize(size);
    return view;
}

void HelpDialogs::showShortcuts()
{
    if (!m_shortcuts) {
        QTextBrowser* view = newTextDialog("shortcutsDialog", QSize(560, 620));
        QDialog* dialog = m_shortcuts = static_cast<QDialog*>(view->parentWidget());
        // The texts are read from the menus, which translate themselves first.
        i18n::onLanguageChange(dialog, [this, dialog, view] {
            dialog->setWindowTitle(tr("Keyboard Shortcuts"));
            view->setAccessibleName(tr("Keyboard shortcuts"));
            view->setHtml(shortcutsHtml());
        });
    }
    m_shortcuts->show();
    m_shortcuts->raise();
}

void HelpDialogs::showWhatYouCanDo()
{
    if (!m_whatYouCanDo) {
        QTextBrowser* view = newTextDialog("whatYouCanDoDialog", QSize(620, 640));
        QDialog* dialog = m_whatYouCanDo = static_cast<QDialog*>(view->parentWidget());
        i18n::onLanguageChange(dialog, [dialog, view] {
            dialog->setWindowTitle(tr("What You Can Do"));
            view->setAccessibleName(tr("What you can do"));
            QString html = QStringLiteral("<ul>");
            for (const Ability& a : abilities)
                html += QStringLiteral("<li><p><b>%1</b> %2</p></li>").arg(tr(a.lead).toHtmlEscaped(), tr(a.text).toHtmlEscaped());
            view->setHtml(html + QStringLiteral("</ul>"));
        });
    }
    m_whatYouCanDo->show();
    m_whatYouCanDo->raise();
}

}  // namespace ui
