#pragma once
/** LabelHeaderView: a header of text labels that measures each label once. A section's size from its contents
 *  depends only on its text, the header's font and its style; a table of tokens and numbers asks for it again
 *  after every reset, resize of a section or show (QHeaderView::sizeHint() measures up to 200 sections each
 *  time), and laying out a text is what costs. The measures are kept by text while the font and the style stay. */

#include <QFont>
#include <QHash>
#include <QHeaderView>
#include <QSize>
#include <QString>

namespace ui {

class LabelHeaderView : public QHeaderView {
    Q_OBJECT
public:
    /** Clickable sections that highlight the selected ones, as a QTableView's own headers have them. */
    explicit LabelHeaderView(Qt::Orientation orientation, QWidget* parent = nullptr);

    /** How many label texts were measured so far (tests and profiling). */
    quint64 textsMeasured() const { return m_measured; }

protected:
    /** QHeaderView's measure of the section's text, taken once per text; a section with an icon is measured each
     *  time, as QHeaderView does. */
    QSize sectionSizeFromContents(int logicalIndex) const override;

private:
    mutable QHash<QString, QSize> m_sizes;
    mutable QFont m_font;              ///< the font m_sizes were measured in
    mutable const QStyle* m_style = nullptr;  ///< and the style
    mutable quint64 m_measured = 0;
};

}  // namespace ui
