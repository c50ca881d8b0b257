#pragma once
/** FlowLayout: items left to right, wrapping onto the next line when the width runs out, so a row of
 *  controls stays readable in a narrow window instead of squeezing each control to an empty box. */

#include <QLayout>
#include <QList>

#include <initializer_list>

namespace ui {

class FlowLayout : public QLayout {
public:
    /** hSpacing and vSpacing: pixels between items on a line and between lines. */
    explicit FlowLayout(QWidget* parent = nullptr, int hSpacing = 6, int vSpacing = 4);
    ~FlowLayout() override;

    /** A widget holding widgets side by side (spacing pixels apart), for a flow that must not part them,
     *  such as a label and the box it names. */
    static QWidget* group(std::initializer_list<QWidget*> widgets, int spacing);

    void addItem(QLayoutItem* item) override;
    /** Inserts widget at index (−1: at the end). */
    void insertWidget(int index, QWidget* widget);
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

private:
    /** Lays the items out in rect (or only measures, when apply is false); returns the height used. */
    int doLayout(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> m_items;
    int m_hSpacing;
    int m_vSpacing;
};

}  // namespace ui
