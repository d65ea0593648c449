<%@ page contentType="text/html; charset=UTF-8" %><%-- ?ref= says where the link was; the page is the same. --%>
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>About</title></head>
<body><h1>About the catalogue</h1>
<p>Fifteen items on three pages.</p>
<p><a href="<%= response.encodeURL("./") %>">Catalogue</a></p>
</body></html>
