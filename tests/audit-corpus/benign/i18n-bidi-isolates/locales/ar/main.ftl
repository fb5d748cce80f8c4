welcome = مرحبًا، { $name }!
unread = لديك { $count } رسائل جديدة
