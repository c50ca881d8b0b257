#include "ui/views/widgets/wrappedlabel.h"

#include <algorithm>

namespace ui {

WrappedLabel::WrappedLabel(QWidget* parent) : QLabel(parent)
{
    setWordWrap(true);
}

WrappedLabel::WrappedLabel(const QString& text, QWidget* parent) : QLabel(text, parent)
{
    setWordWrap(true);
}

int WrappedLabel::heightForWidth(int width) const
{
    const QString current = text();
    if (current != m_text || font() != m_font || contentsMargins() != m_margins || textFormat() != m_format) {
        m_heights.fill({-1, 0});
        m_text = current;
        m_font = font();
        m_margins = contentsMargins();
        m_format = textFormat();
    }
    for (const auto& [w, h] : m_heights)
        if (w == width)
            return h;
    std::move_backward(m_heights.begin(), m_heights.end() - 1, m_heights.end());
    m_heights.front() = {width, QLabel::heightForWidth(width)};
    return m_heights.front().second;
}

}  // namespace ui
