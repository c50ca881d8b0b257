#include "ui/views/steps/tokenbar.h"

#include "ui/views/widgets/editorundo.h"
#include "ui/views/widgets/inlinemessage.h"
#include "ui/views/widgets/tokenchips.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/document/viewstate.h"

#include <QLabel>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>

namespace ui {

namespace {

/** 16 Mi characters: more than any text of Limits::maxTokens tokens a person pastes. */
constexpr int maxTextLength = 1 << 24;

}  // namespace

TokenBar::TokenBar(Document* document, ViewState* viewState, QWidget* parent)
    : QWidget(parent), m_document(document), m_viewState(viewState)
{
    setObjectName(QStringLiteral("tokenBar"));
    m_line = new QLineEdit;
    m_line->setObjectName(QStringLiteral("tokenLine"));
    m_line->setClearButtonEnabled(true);
    // Qt's default of 32767 characters would cut a pasted text short without a word; the document
    // refuses what is too long (more than Limits::maxTokens tokens) and says so.
    m_line->setMaxLength(maxTextLength);
    // Every keystroke is in the document already: undo is the document's, not the line's.
    routeUndoToDocument(m_line, document->undoStack());

    m_message = new InlineMessage;
    m_message->setObjectName(QStringLiteral("tokenMessage"));

    m_count = new QLabel;
    m_count->setObjectName(QStringLiteral("tokenCount"));
    m_count->setForegroundRole(QPalette::PlaceholderText);

    m_chips = new TokenChips;
    m_chipScroll = new QScrollArea;
    m_chipScroll->setWidget(m_chips);
    m_chipScroll->setWidgetResizable(true);
    m_chipScroll->setFrameShape(QFrame::NoFrame);
    m_chipScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_chipScroll->setBackgroundRole(QPalette::Window);
    m_chipScroll->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);

    auto* label = new QLabel;
    label->setBuddy(m_line);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    auto* header = new QHBoxLayout;
    header->addWidget(label);
    header->addStretch(1);
    header->addWidget(m_count);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->setSpacing(6);
    layout->addLayout(header);
    layout->addWidget(m_line);
    layout->addWidget(m_message);
    layout->addWidget(m_chipScroll, 1);

    connect(m_line, &QLineEdit::textEdited, this, &TokenBar::textEdited);
    // Enter or leaving the line ends a burst of typing: what is typed next is undone on its own.
    connect(m_line, &QLineEdit::editingFinished, document, &Document::endTypingBurst);
    connect(m_chips, &TokenChips::chipClicked, viewState, &ViewState::setSelectedQuery);
    connect(viewState, &ViewState::selectedQueryChanged, m_chips, &TokenChips::setSelected);
    connect(document, &Document::tokenTextResult, this, [this](const QString& text, const QString& error) {
        if (text == m_line->text())
            m_message->showMessage(error);
    });
    connect(document, &Document::modelChanged, this, [this](const ModelChange& change) {
        // Only the tokens and the text are shown here: a cell edit of 4096 tokens lists none of them again.
        // A model's tokens come from the forward pass after its text: the line has been set already and may
        // hold a text that was refused since, which stays.
        if (change.kind == ModelChange::Kind::Tokens || change.kind == ModelChange::Kind::Model)
            syncFromDocument(!m_document->isModelSession());
    });
    connect(document, &Document::tokenTextChanged, this, [this] { syncFromDocument(); });
    i18n::onLanguageChange(this, [this, label] {
        m_line->setPlaceholderText(tr("Type a sentence…"));
        m_line->setToolTip(tr("Every keystroke re-tokenizes: words, punctuation marks and each Chinese or Japanese "
                              "character become tokens."));
        m_line->setAccessibleName(tr("Token text"));
        m_chipScroll->setAccessibleName(tr("Tokens, one chip each"));
        // The line's clear button is a widget of Qt's own without a name; it is named here.
        for (QWidget* button : m_line->findChildren<QWidget*>())
            if (button->inherits("QLineEditIconButton"))
                button->setAccessibleName(tr("Clear the text"));
        label->setText(tr("&Tokens"));
        syncFromDocument();
    });
    m_chips->setSelected(viewState->selectedQuery());
}

TokenBar::~TokenBar() = default;

QString TokenBar::message() const
{
    return m_message->message();
}

void TokenBar::textEdited(const QString& text)
{
    // A long paste is tokenized on a worker; tokenTextResult brings the message, if any.
    m_document->requestTokenText(text);
}

void TokenBar::syncFromDocument(bool line)
{
    const QString text = m_document->tokenText();
    // While a pasted text is being tokenized the line shows it, not the document's older text.
    if (line && m_line->text() != text && !m_document->isTokenTextPending()) {
        const int cursor = m_line->cursorPosition();
        m_line->setText(text);
        m_line->setCursorPosition(std::min(cursor, int(text.size())));
        m_message->showMessage(QString());
    }
    QStringList tokens;
    for (const auto& t : m_document->model().tokens)
        tokens << QString::fromStdString(t);
    m_chips->setTokens(tokens);
    QList<int> ids;
    if (const ModelSession* model = m_document->modelSession(); model && int(model->ids().size()) == tokens.size())
        ids = QList<int>(model->ids().begin(), model->ids().end());
    m_chips->setTokenIds(ids);
    m_count->setText(tokens.size() == 1 ? tr("1 token") : tr("%1 tokens").arg(tokens.size()));
    if (m_viewState->selectedQuery() >= tokens.size())
        m_viewState->setSelectedQuery(std::max(0, int(tokens.size()) - 1));
}

}  // namespace ui
