#pragma once
/** InlineMessage: a word-wrapped warning line under an input, hidden while there is nothing to say. */

#include <QLabel>

namespace ui {

class InlineMessage : public QLabel {
    Q_OBJECT
public:
    explicit InlineMessage(QWidget* parent = nullptr);

    /** Shows text, or hides the line when text is empty. */
    void showMessage(const QString& text);
    /** The text shown; empty while hidden. */
    QString message() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateColour();
};

}  // namespace ui
