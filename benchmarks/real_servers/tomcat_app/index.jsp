<%@ page contentType="text/html; charset=UTF-8" %><%-- Every page opens a session (JSP's default): links go through encodeURL, which writes ;jsessionid= for a client without the cookie. --%>
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Catalogue</title></head>
<body><h1>Catalogue</h1>
<ul>
<% for (int n = 1; n <= 3; n++) { %><li><a href="<%= response.encodeURL("catalog.jsp?page=" + n) %>">Page <%= n %></a></li>
<% } %><li><a href="<%= response.encodeURL("about.jsp?ref=home") %>">About</a></li>
<li><a href="<%= response.encodeURL("/") %>">Documentation</a></li>
</ul></body></html>
