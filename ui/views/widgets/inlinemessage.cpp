#include "ui/views/widgets/inlinemessage.h"

#include <QEvent>

namespace ui {

InlineMessage::InlineMessage(QWidget* parent) : QLabel(parent)
{
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setHidden(true);
    updateColour();
}

void InlineMessage::showMessage(const QString& text)
{
    setText(text);
    setHidden(text.isEmpty());
}

QString InlineMessage::message() const
{
    return isHidden() ? QString() : text();
}

void InlineMessage::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        updateColour();
    QLabel::changeEvent(event);
}

void InlineMessage::updateColour()
{
    // A red that reads on light and dark windows alike.
    const bool dark = palette().color(QPalette::Window).lightnessF() < 0.5;
    const QColor red = dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb3, 0x26, 0x1e);
    if (palette().color(QPalette::WindowText) == red)
        return;
    QPalette p = palette();
    p.setColor(QPalette::WindowText, red);
    setPalette(p);
}

}  // namespace ui
