#include "querychooser.h"

#include <QComboBox>
#include <QCoreApplication>

namespace ui {

void syncQueryCombo(QComboBox* combo, const core::Trace* trace, int query)
{
    const int n = trace ? trace->n() : 0;
    QStringList tokens;
    for (int i = 0; i < n; ++i)
        tokens << QCoreApplication::translate("QueryChooser", "%1 “%2”")
                      .arg(i + 1)
                      .arg(QString::fromStdString(trace->model.tokens[std::size_t(i)]));
    QStringList current;
    for (int i = 0; i < combo->count(); ++i)
        current << combo->itemText(i);
    if (current != tokens) {
        combo->clear();
        combo->addItems(tokens);
    }
    combo->setCurrentIndex(n > 0 ? std::clamp(query, 0, n - 1) : -1);
}

}  // namespace ui
