#pragma once
/** WrappedLabel: a word-wrapped QLabel that remembers its height for the last width asked.
 *
 *  A layout asks every word-wrapped label for heightForWidth() each time it is invalidated, and QLabel lays
 *  its text out anew for each question (a whole QTextDocument for rich text). In the steps panel an edit
 *  resizes the step tables, which invalidates the panel's layouts and asked the same unchanged formulas for
 *  the same few widths dozens of times per edit. The answer depends only on the width, the text, the font
 *  and the margins, so the answers for the last few widths are kept until one of the others changes. */

#include <QLabel>

#include <array>
#include <utility>

namespace ui {

class WrappedLabel : public QLabel {
    Q_OBJECT
public:
    explicit WrappedLabel(QWidget* parent = nullptr);
    explicit WrappedLabel(const QString& text, QWidget* parent = nullptr);

    /** QLabel's answer, computed once for each width, text, font and margins. */
    int heightForWidth(int width) const override;

private:
    /** (width, height) of the last answers, the newest first; width −1 is an empty entry. */
    mutable std::array<std::pair<int, int>, 4> m_heights{{{-1, 0}, {-1, 0}, {-1, 0}, {-1, 0}}};
    mutable QString m_text;
    mutable QFont m_font;
    mutable QMargins m_margins;
    mutable Qt::TextFormat m_format = Qt::AutoText;
};

}  // namespace ui
