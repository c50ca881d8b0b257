#include "ui/views/widgets/labelheaderview.h"

#include <QStyle>

namespace ui {

LabelHeaderView::LabelHeaderView(Qt::Orientation orientation, QWidget* parent) : QHeaderView(orientation, parent)
{
    setSectionsClickable(true);
    setHighlightSections(true);
}

QSize LabelHeaderView::sectionSizeFromContents(int logicalIndex) const
{
    QAbstractItemModel* m = model();
    if (!m || logicalIndex < 0 || m->headerData(logicalIndex, orientation(), Qt::DecorationRole).isValid()
        || isSortIndicatorShown())
        return QHeaderView::sectionSizeFromContents(logicalIndex);
    const QString text = m->headerData(logicalIndex, orientation(), Qt::DisplayRole).toString();
    // Bounded: a table shows at most a few thousand labels, and a long session's texts keep coming.
    constexpr qsizetype kept = 8192;
    if (m_sizes.size() >= kept || font() != m_font || style() != m_style) {
        m_sizes.clear();
        m_font = font();
        m_style = style();
    }
    auto it = m_sizes.find(text);
    if (it == m_sizes.end()) {
        ++m_measured;
        it = m_sizes.insert(text, QHeaderView::sectionSizeFromContents(logicalIndex));
    }
    return *it;
}

}  // namespace ui
