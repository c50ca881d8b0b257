#pragma once
/** TokenBar: the token line (typing re-tokenizes live) and the tokens as chips below it. */

#include <QWidget>

class QLabel;
class QLineEdit;
class QScrollArea;

namespace ui {

class Document;
class InlineMessage;
class TokenChips;
class ViewState;

class TokenBar : public QWidget {
    Q_OBJECT
public:
    TokenBar(Document* document, ViewState* viewState, QWidget* parent = nullptr);
    ~TokenBar() override;

    QLineEdit* lineEdit() const { return m_line; }
    TokenChips* chips() const { return m_chips; }
    /** The message shown under the line (why the text was refused); empty when none. */
    QString message() const;

private:
    void textEdited(const QString& text);
    /** Shows the document's tokens, and its text in the line unless line is false. */
    void syncFromDocument(bool line = true);

    Document* m_document;
    ViewState* m_viewState;
    QLineEdit* m_line;
    InlineMessage* m_message;
    QLabel* m_count;
    TokenChips* m_chips;
    QScrollArea* m_chipScroll;
};

}  // namespace ui
